/// The OpenAPI 3.0.3 description of the HTTP API, served at `/openapi.yaml`.
///
/// `OpenAPIDocumentTests` checks that every registered route is described here and that every
/// path here is a registered route; `scripts/check-openapi.sh` validates the document and runs
/// schemathesis against a live server. Change this together with the routes.
enum OpenAPIDocument {
    static let yaml = #"""
    openapi: 3.0.3
    info:
      title: Handover
      version: "1"
      description: |
        Handover records fleet logout runs for shared iOS devices: a device asks the server to log
        every registered target app out, opens each item's ULC link, and the apps' callbacks (reported
        by the launcher, or landing on the callback page in a browser) finish the run.

        Every route under /api/v1 needs an API key, sent as `Authorization: Bearer hov_…`. A key has
        the `admin` scope (everything) or the `device` scope (one device: start its own runs, read
        them, report their callbacks). No valid key is a 401; a key of the wrong scope is a 403.

        Every error body is JSON: `{"error": code, "reason": sentence, "field": name}`, where `field`
        names the request field at fault when there is one. Dates are ISO 8601 strings in UTC, such as
        `2026-05-01T08:30:00Z`. Absent optional fields are left out of responses, never `null`.
        Request bodies are JSON of at most 16 KB (larger ones are a 413); unknown fields are ignored.
    servers:
      - url: /
    tags:
      - name: registry
        description: Apps, devices and webhooks. Admin scope only.
      - name: runs
        description: Logout runs. Admin scope, or a device key for its own device.
      - name: public
        description: Routes without an API key.
      - name: operations
        description: |
          Out-of-band operations (sign in, enroll, confirm a transaction, deregister) sent to a
          phone by push, QR code or link, and the phones enrolled for them. Admin scope.
      - name: phone
        description: What the phone app calls, authenticated by its enrolled key's signature instead of an API key.
      - name: sessions
        description: |
          Sign in with Apple and the server's own user sessions: short-lived access tokens (ES256
          JWTs sent as `Authorization: Bearer …`) and single-use refresh tokens.
    security:
      - bearerAuth: []
    paths:
      /healthz:
        get:
          tags: [public]
          operationId: health
          summary: Liveness check.
          security: []
          responses:
            "200":
              description: The server is up.
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: false
                    required: [status]
                    properties:
                      status:
                        type: string
                        enum: [ok]
      /metrics:
        get:
          tags: [public]
          operationId: metrics
          summary: Prometheus metrics, in the text exposition format 0.0.4.
          security: []
          responses:
            "200":
              description: The metrics.
              content:
                text/plain:
                  schema:
                    type: string
      /openapi.yaml:
        get:
          tags: [public]
          operationId: openAPIDocument
          summary: This document.
          security: []
          responses:
            "200":
              description: The OpenAPI 3.0.3 description of the API.
              content:
                application/yaml:
                  schema:
                    type: string
      /.well-known/apple-app-site-association:
        get:
          tags: [public]
          operationId: appleAppSiteAssociation
          summary: The apple-app-site-association file, generated from the registry.
          description: |
            Every app's paths are claimed on this domain; launchers also claim `/ulc/cb/*`. Carries an
            ETag and answers a matching `If-None-Match` with 304. A 404 while no app claims anything.
          security: []
          parameters:
            - $ref: "#/components/parameters/IfNoneMatch"
          responses:
            "200":
              description: The file.
              headers:
                ETag:
                  $ref: "#/components/headers/ETag"
              content:
                application/json:
                  schema:
                    type: object
                    required: [applinks]
                    properties:
                      applinks:
                        type: object
            "304":
              description: The file has not changed since the ETag given in If-None-Match.
            "404":
              $ref: "#/components/responses/NotFound"
      /.well-known/assetlinks.json:
        get:
          tags: [public]
          operationId: assetLinks
          summary: The Android assetlinks.json file, generated from the registry.
          description: |
            One statement per app with an Android package. Carries an ETag and answers a matching
            `If-None-Match` with 304. A 404 while no app has an Android package.
          security: []
          parameters:
            - $ref: "#/components/parameters/IfNoneMatch"
          responses:
            "200":
              description: The file.
              headers:
                ETag:
                  $ref: "#/components/headers/ETag"
              content:
                application/json:
                  schema:
                    type: array
                    items:
                      type: object
            "304":
              description: The file has not changed since the ETag given in If-None-Match.
            "404":
              $ref: "#/components/responses/NotFound"
      /ulc/cb/{runID}/{itemID}/{outcome}:
        get:
          tags: [public]
          operationId: callbackPage
          summary: The browser fallback for an app's callback; records the outcome and shows an HTML page.
          description: |
            An app's success or error callback lands here when the launcher does not claim the link.
            It records the outcome exactly as `POST /api/v1/logout-runs/{runID}/callbacks` would.
            Anything that is not a callback of a pending item (a bad id, outcome or nonce) is a 404 page.
          security: []
          parameters:
            - name: runID
              in: path
              required: true
              schema:
                type: string
                format: uuid
            - name: itemID
              in: path
              required: true
              schema:
                type: string
                format: uuid
            - name: outcome
              in: path
              required: true
              schema:
                type: string
                enum: [success, error]
            - name: n
              in: query
              required: true
              description: The nonce issued with the item's link.
              schema:
                type: string
          responses:
            "200":
              description: The outcome was recorded.
              content:
                text/html:
                  schema:
                    type: string
            "404":
              description: Not a valid callback link.
              content:
                text/html:
                  schema:
                    type: string
            "409":
              description: The item already has its outcome; nothing was recorded.
              content:
                text/html:
                  schema:
                    type: string
      /api/v1/apps:
        post:
          tags: [registry]
          operationId: createApp
          summary: Register an app. Admin scope.
          description: |
            Admin scope. A target app (the default role) needs its `logoutAction`; a launcher has none.
            The app must keep the apple-app-site-association file valid, or it is refused (422 on `paths`).
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/AppInput"
          responses:
            "201":
              description: The app was registered.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/App"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "409":
              $ref: "#/components/responses/Conflict"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
        get:
          tags: [registry]
          operationId: listApps
          summary: Every registered app, oldest first. Admin scope.
          responses:
            "200":
              description: The apps.
              content:
                application/json:
                  schema:
                    type: array
                    items:
                      $ref: "#/components/schemas/App"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
      /api/v1/apps/{appID}:
        parameters:
          - $ref: "#/components/parameters/AppID"
        get:
          tags: [registry]
          operationId: getApp
          summary: One app. Admin scope.
          responses:
            "200":
              description: The app.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/App"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
        delete:
          tags: [registry]
          operationId: deleteApp
          summary: Remove an app from the registry. Admin scope.
          description: Admin scope. Runs already started keep their items for the app.
          responses:
            "204":
              description: The app was removed.
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/devices:
        post:
          tags: [registry]
          operationId: createDevice
          summary: Register a device and make its API key (device scope, shown once). Admin scope.
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/DeviceInput"
          responses:
            "201":
              description: The device and its key.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/CreatedDevice"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
        get:
          tags: [registry]
          operationId: listDevices
          summary: Every device, oldest first. Admin scope.
          responses:
            "200":
              description: The devices.
              content:
                application/json:
                  schema:
                    type: array
                    items:
                      $ref: "#/components/schemas/Device"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
      /api/v1/devices/{deviceID}:
        parameters:
          - $ref: "#/components/parameters/DeviceID"
        get:
          tags: [registry]
          operationId: getDevice
          summary: One device. Admin scope.
          responses:
            "200":
              description: The device.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Device"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/devices/{deviceID}/logout-runs:
        parameters:
          - $ref: "#/components/parameters/DeviceID"
        post:
          tags: [runs]
          operationId: createLogoutRun
          summary: Start a logout run on a device. Admin scope, or the device's own key.
          description: |
            Admin scope, or a device key for this device (another device's key is a 403). With no
            body, or no `apps`, every target app is logged out; a 409 when there are none.
          requestBody:
            required: false
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/RunInput"
          responses:
            "201":
              description: The run, with one pending item per app and each item's link to open.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/LogoutRun"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "409":
              $ref: "#/components/responses/Conflict"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /api/v1/logout-runs/{runID}:
        parameters:
          - $ref: "#/components/parameters/RunID"
        get:
          tags: [runs]
          operationId: getLogoutRun
          summary: One run. Admin scope, or the key of the run's device.
          responses:
            "200":
              description: The run.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/LogoutRun"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/logout-runs/{runID}/events:
        parameters:
          - $ref: "#/components/parameters/RunID"
        get:
          tags: [runs]
          operationId: followLogoutRun
          summary: Follow a run live (Server-Sent Events). Admin scope, or the key of the run's device.
          description: |
            Admin scope, or the key of the run's device. A `text/event-stream`: an `event: run` whose
            `data` is the whole run (the LogoutRun schema, as JSON on one line) at once and after every
            change, until the run is completed or failed; then the stream ends. A comment line
            (`: keep-alive`) every 15 seconds keeps proxies from closing it.
          responses:
            "200":
              description: The stream of run events.
              content:
                text/event-stream:
                  schema:
                    $ref: "#/components/schemas/RunEvent"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/logout-runs/{runID}/callbacks:
        parameters:
          - $ref: "#/components/parameters/RunID"
        post:
          tags: [runs]
          operationId: reportCallback
          summary: Report a callback the launcher received as a universal link. Admin scope, or the key of the run's device.
          description: |
            Admin scope, or the key of the run's device. Records the item's outcome once: a second
            report for the same item is a 409; a nonce not issued for the item is a 404
            (`unknown_callback`); a URL that is not a callback of this run is a 422 on `url`.
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/CallbackReport"
          responses:
            "200":
              description: The outcome was recorded.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/CallbackReportResult"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "409":
              $ref: "#/components/responses/Conflict"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /api/v1/webhooks:
        post:
          tags: [registry]
          operationId: createWebhook
          summary: Subscribe a URL to run events; the signing secret is shown once. Admin scope.
          description: |
            Admin scope. The URL must be https (http only on loopback); link-local, metadata and (unless
            the server allows them) private addresses are refused, also after resolving the name at each
            delivery. Deliveries follow Standard Webhooks: `webhook-id`, `webhook-timestamp` and
            `webhook-signature` (`v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`). Give a
            `secret` of the form `whsec_<base64 of 24 to 64 bytes>`, or leave it out to have one generated.
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/WebhookInput"
          responses:
            "201":
              description: The webhook and its signing secret.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/CreatedWebhook"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
        get:
          tags: [registry]
          operationId: listWebhooks
          summary: Every webhook, oldest first (without secrets). Admin scope.
          responses:
            "200":
              description: The webhooks.
              content:
                application/json:
                  schema:
                    type: array
                    items:
                      $ref: "#/components/schemas/Webhook"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
      /api/v1/webhooks/{webhookID}/deliveries:
        parameters:
          - $ref: "#/components/parameters/WebhookID"
        get:
          tags: [registry]
          operationId: listDeliveries
          summary: A webhook's latest 200 deliveries, newest first. Admin scope.
          responses:
            "200":
              description: The deliveries.
              content:
                application/json:
                  schema:
                    type: array
                    maxItems: 200
                    items:
                      $ref: "#/components/schemas/Delivery"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/webhooks/{webhookID}/rotate-secret:
        parameters:
          - $ref: "#/components/parameters/WebhookID"
        post:
          tags: [registry]
          operationId: rotateWebhookSecret
          summary: A new signing secret, shown once; the old one keeps signing beside it for 24 hours. Admin scope.
          requestBody:
            required: false
            content:
              application/json:
                schema:
                  type: object
                  additionalProperties: false
                  properties:
                    secret:
                      type: string
                      pattern: "^whsec_[A-Za-z0-9+/]{32,88}={0,2}$"
                      description: The new secret; generated when left out.
          responses:
            "200":
              description: The webhook and its new signing secret.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/CreatedWebhook"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /auth/apple/nonce:
        post:
          tags: [sessions]
          operationId: createSignInNonce
          summary: A single-use nonce for the next Sign in with Apple request (10 minutes).
          description: |
            The app puts the SHA-256 hex digest of this nonce in its `ASAuthorizationAppleIDRequest`,
            and sends the nonce itself with `POST /auth/apple`. Only the digest is stored.
          security: []
          responses:
            "404":
              $ref: "#/components/responses/NotFound"
            "429":
              $ref: "#/components/responses/RateLimited"
            "200":
              description: The nonce.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Nonce"
      /auth/apple:
        post:
          tags: [sessions]
          operationId: signInWithApple
          summary: Exchanges an Apple identity token and authorization code for a session.
          description: |
            Verifies the identity token (RS256, Apple's keys, `iss`, `aud`, `exp`, `iat`, and `nonce`
            against the SHA-256 of the nonce sent), consumes the nonce, exchanges the code with Apple
            and keeps Apple's refresh token encrypted. 404 `not_configured` when Sign in with Apple is
            not set up on this server.
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/AppleSignInInput"
          responses:
            "200":
              description: A new session.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/SessionGrant"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/SignInRefused"
            "404":
              $ref: "#/components/responses/NotConfigured"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
            "503":
              $ref: "#/components/responses/AppleUnavailable"
      /auth/refresh:
        post:
          tags: [sessions]
          operationId: refreshSession
          summary: Rotates a refresh token into a new token pair.
          description: |
            Each refresh token works once. Presenting one already used signs the whole session out
            (`refresh_token_reused`). Once a day the user's Apple grant is checked with Apple; if Apple
            says `invalid_grant`, every session of the user ends (`apple_grant_revoked`).
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/RefreshInput"
          responses:
            "200":
              description: The new pair.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/SessionGrant"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/SignInRefused"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /auth/logout:
        post:
          tags: [sessions]
          operationId: signOut
          summary: Ends the session of the access token sent; with `scope=device`, the device session too.
          security:
            - sessionAuth: []
          parameters:
            - name: scope
              in: query
              required: false
              description: "`session` (default), or `device`: also revoke the device secret and every sibling session derived from it."
              schema:
                type: string
                enum: [session, device]
          responses:
            "204":
              description: Signed out; the session's tokens no longer work.
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/SessionUnauthorized"
      /auth/apple/notifications:
        post:
          tags: [sessions]
          operationId: appleServerNotification
          summary: Apple's server-to-server notifications (register this URL with Apple).
          description: |
            Verifies the JWT in `payload` and applies its event once per `jti`: `consent-revoked` and
            `account-delete` end every session of the user at once (`account-delete` also deletes the
            user), `email-disabled` and `email-enabled` update the email flags.
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  required: [payload]
                  properties:
                    payload:
                      type: string
                      description: The signed JWT Apple sends.
          responses:
            "200":
              description: Applied now, or earlier (a duplicate).
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/NotificationResult"
            "400":
              $ref: "#/components/responses/BadRequest"
            "404":
              $ref: "#/components/responses/NotConfigured"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
      /api/v1/me:
        get:
          tags: [sessions]
          operationId: showMe
          summary: The signed-in user, read from the access token alone.
          security:
            - sessionAuth: []
          responses:
            "200":
              description: The user.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Me"
            "401":
              $ref: "#/components/responses/SessionUnauthorized"
        delete:
          tags: [sessions]
          operationId: deleteMe
          summary: Deletes the account, revoking its Sign in with Apple grant at Apple first.
          security:
            - sessionAuth: []
          responses:
            "204":
              description: Deleted; every session of the user has ended.
            "401":
              $ref: "#/components/responses/SessionUnauthorized"
            "503":
              $ref: "#/components/responses/AppleUnavailable"
      /auth/email/start:
        post:
          tags: [sessions]
          operationId: startEmailSignIn
          summary: Mails a one-time sign-in link (15 minutes, single use).
          description: |
            202 for any well-formed address, whether or not an account exists. The link
            (`/auth/email/verify?token=…`) is a universal link claimed in this server's association
            file. Limited to 3 per address and 20 per client address per 15 minutes (429).
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  required: [email]
                  properties:
                    email:
                      type: string
          responses:
            "202":
              description: The link was sent.
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: false
                    required: [status]
                    properties:
                      status:
                        type: string
                        enum: [sent]
            "400":
              $ref: "#/components/responses/BadRequest"
            "404":
              $ref: "#/components/responses/NotConfigured"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
            "429":
              $ref: "#/components/responses/RateLimited"
            "503":
              $ref: "#/components/responses/MailUnavailable"
      /auth/email/redeem:
        post:
          tags: [sessions]
          operationId: redeemEmailSignIn
          summary: The app trades the link's token for a session.
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  required: [token]
                  properties:
                    token:
                      type: string
                    scope:
                      type: string
                      description: Space-separated; `device_sso` also returns a device secret and an ID token.
                    clientID:
                      type: string
                      description: The app's bundle id, as registered; required with `device_sso`.
                    deviceID:
                      type: string
                      format: uuid
                      description: The registered fleet device; its logout run ends the device session.
          responses:
            "200":
              description: A new session.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/SessionGrant"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/SignInRefused"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "429":
              $ref: "#/components/responses/RateLimited"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /auth/email/verify:
        get:
          tags: [sessions]
          operationId: emailSignInPage
          summary: The link opened in a browser; a page that offers to sign this browser in.
          security: []
          parameters:
            - name: token
              in: query
              required: false
              schema:
                type: string
          responses:
            "200":
              description: A page with a one-click form.
              content:
                text/html:
                  schema:
                    type: string
            "410":
              description: The link is unknown, used or expired.
              content:
                text/html:
                  schema:
                    type: string
        post:
          tags: [sessions]
          operationId: emailSignInInBrowser
          summary: Signs this browser in (the page's form) and says so.
          security: []
          requestBody:
            required: true
            content:
              application/x-www-form-urlencoded:
                schema:
                  type: object
                  properties:
                    token:
                      type: string
          responses:
            "403":
              description: The form was posted from another site (its `Origin` is not this server's).
              content:
                text/html:
                  schema:
                    type: string
            "429":
              description: Too many links that did not open from this address; `Retry-After` says when to try again.
              content:
                text/html:
                  schema:
                    type: string
            "200":
              description: Signed in; sets the HttpOnly `handover_web_session` cookie.
              content:
                text/html:
                  schema:
                    type: string
            "410":
              description: The link is unknown, used or expired.
              content:
                text/html:
                  schema:
                    type: string
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
      /oauth/token:
        post:
          tags: [sessions]
          operationId: nativeSSOTokenExchange
          summary: OpenID Connect Native SSO token exchange for a sibling app.
          description: |
            RFC 8693 token exchange: `grant_type=urn:ietf:params:oauth:grant-type:token-exchange`,
            `client_id` (a registered app of the same team), `subject_token` (the ID token),
            `subject_token_type=urn:ietf:params:oauth:token-type:id_token`, `actor_token` (the device
            secret) and `actor_token_type` `urn:openid:params:token-type:device-secret` or
            `urn:x-oath:params:oauth:token-type:device-secret`. Errors are RFC 6749 JSON.
          security: []
          requestBody:
            required: true
            content:
              application/x-www-form-urlencoded:
                schema:
                  type: object
                  properties:
                    grant_type:
                      type: string
                    client_id:
                      type: string
                    subject_token:
                      type: string
                    subject_token_type:
                      type: string
                    actor_token:
                      type: string
                    actor_token_type:
                      type: string
          responses:
            "200":
              description: The sibling's own tokens.
              content:
                application/json:
                  schema:
                    type: object
                    required: [access_token, issued_token_type, token_type, expires_in, refresh_token]
                    properties:
                      access_token:
                        type: string
                      issued_token_type:
                        type: string
                      token_type:
                        type: string
                      expires_in:
                        type: integer
                      refresh_token:
                        type: string
                      id_token:
                        type: string
            "400":
              $ref: "#/components/responses/OAuthError"
            "401":
              $ref: "#/components/responses/OAuthError"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
      /api/v1/operations:
        post:
          tags: [operations]
          operationId: createOperation
          summary: Create an out-of-band operation and dispatch it (push, QR code or link). Admin scope.
          description: |
            Every type but `registration` goes to an enrolled phone of `user` (the one named in
            `device`, else the most recently enrolled), sealed to its key. A registration enrolls a
            new phone, so its payload is plain and it cannot be pushed. Callback targets must pass
            the tenant's allowlist (`/api/v1/operations/callback-allowlist`). The answer carries the
            dispatch result; for `authentication` also the `number` the web page shows.
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/OperationInput"
          responses:
            "201":
              description: Created and dispatched (`dispatched`), or created with a push that did not go out (`created`).
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Operation"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "409":
              $ref: "#/components/responses/Conflict"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /api/v1/operations/callback-allowlist:
        get:
          tags: [operations]
          operationId: getCallbackAllowlist
          summary: The tenant's allowlist for operations' x-callback targets. Admin scope.
          responses:
            "200":
              description: The allowlist; empty lists allow no targets.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/CallbackAllowlist"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
        put:
          tags: [operations]
          operationId: setCallbackAllowlist
          summary: Replace the allowlist. Admin scope.
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/CallbackAllowlistInput"
          responses:
            "200":
              description: The allowlist now.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/CallbackAllowlist"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /api/v1/operations/{operationID}:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        get:
          tags: [operations]
          operationId: getOperation
          summary: One operation and its status. Admin scope.
          description: One past its expiry and still unanswered is marked `expired` first.
          responses:
            "200":
              description: The operation.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Operation"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/operations/{operationID}/events:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        get:
          tags: [operations]
          operationId: followOperation
          summary: Follow an operation live (Server-Sent Events). Admin scope.
          description: |
            An `event: operation` whose `data` is the Operation as JSON on one line, at once and after
            every change, until a final status (`succeeded`, `failed`, `cancelled`, `expired`); then the
            stream ends. A `: keep-alive` comment every 15 seconds.
          responses:
            "200":
              description: The stream of operation events.
              content:
                text/event-stream:
                  schema:
                    $ref: "#/components/schemas/OperationEvent"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/operations/{operationID}/cancel:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        post:
          tags: [operations]
          operationId: cancelOperation
          summary: Cancel an operation that has not ended. Admin scope.
          responses:
            "200":
              description: Cancelled.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Operation"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "409":
              $ref: "#/components/responses/Conflict"
      /api/v1/operations/{operationID}/qr.svg:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        get:
          tags: [operations]
          operationId: operationQRCodeSVG
          summary: The operation's universal link as a QR code (SVG), while it takes an answer. Admin scope.
          responses:
            "200":
              description: The QR code.
              content:
                image/svg+xml:
                  schema:
                    type: string
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "410":
              $ref: "#/components/responses/Gone"
      /api/v1/operations/{operationID}/qr.png:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        get:
          tags: [operations]
          operationId: operationQRCodePNG
          summary: The operation's universal link as a QR code (PNG, 6 pixels a module), while it takes an answer. Admin scope.
          responses:
            "200":
              description: The QR code.
              content:
                image/png:
                  schema:
                    type: string
                    format: binary
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "410":
              $ref: "#/components/responses/Gone"
      /api/v1/oob-locks:
        get:
          tags: [operations]
          operationId: listOutOfBandLocks
          summary: Users whose out-of-band sign-in is locked after they reported a request as "this was not me". Admin scope.
          responses:
            "200":
              description: The locks, most recent first.
              content:
                application/json:
                  schema:
                    type: array
                    items:
                      $ref: "#/components/schemas/OutOfBandLock"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
      /api/v1/oob-locks/{user}:
        parameters:
          - name: user
            in: path
            required: true
            schema:
              type: string
        delete:
          tags: [operations]
          operationId: clearOutOfBandLock
          summary: Lets the user sign in out-of-band again. Admin scope.
          responses:
            "204":
              description: Cleared.
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
      /api/v1/enrolled-devices:
        get:
          tags: [operations]
          operationId: listEnrolledDevices
          summary: Phones enrolled for out-of-band operations, newest first (at most 500). Admin scope.
          parameters:
            - name: user
              in: query
              required: false
              description: Only this user's phones.
              schema:
                type: string
          responses:
            "200":
              description: The phones.
              content:
                application/json:
                  schema:
                    type: array
                    items:
                      $ref: "#/components/schemas/EnrolledDevice"
            "401":
              $ref: "#/components/responses/Unauthorized"
            "429":
              $ref: "#/components/responses/RateLimited"
            "403":
              $ref: "#/components/responses/Forbidden"
      /oob/operations/{operationID}/redeem:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        post:
          tags: [phone]
          operationId: redeemOperation
          summary: The phone's signed answer (the envelope's redeem URL).
          description: |
            No API key: the signature by the device's enrolled key (for a registration, by the key
            being enrolled) is the credential. Checked in order: operation, challenge, expiry, device,
            signature, number. A refused answer changes nothing, except that a late one marks the
            operation `expired` (410) and a wrong number signed by the right device fails it (403
            `wrong_number`). Exactly one answer is accepted; later ones are a 409 `already_answered`.
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/RedeemRequest"
          responses:
            "200":
              description: Accepted; the operation after it (`succeeded` or `cancelled`).
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Operation"
            "400":
              $ref: "#/components/responses/BadRequest"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "409":
              $ref: "#/components/responses/Conflict"
            "410":
              $ref: "#/components/responses/Gone"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /oob/devices/{deviceID}/push-token:
        parameters:
          - name: deviceID
            in: path
            required: true
            description: The enrolled device's id.
            schema:
              type: string
        put:
          tags: [phone]
          operationId: registerPushToken
          summary: The phone's APNs token, signed with its enrolled key within 5 minutes of the server's time.
          security: []
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: "#/components/schemas/PushTokenRegistration"
          responses:
            "200":
              description: The token is stored and active.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/EnrolledDevice"
            "400":
              $ref: "#/components/responses/BadRequest"
            "403":
              $ref: "#/components/responses/Forbidden"
            "404":
              $ref: "#/components/responses/NotFound"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /oob/open:
        get:
          tags: [phone]
          operationId: operationLinkInBrowser
          summary: Where a universal link lands when the app is not installed; a page that says to open it on the phone.
          security: []
          responses:
            "200":
              description: The page.
              content:
                text/html:
                  schema:
                    type: string
      /auth/oob/enroll:
        post:
          tags: [sessions]
          operationId: enrollPhoneFromSession
          summary: A registration operation for the signed-in user; its link enrolls a phone.
          security:
            - sessionAuth: []
          requestBody:
            required: false
            content:
              application/json:
                schema:
                  type: object
                  properties:
                    dispatcher:
                      type: string
                      enum: [link, qr, x-callback-link]
                      description: "`link` when absent."
                    expiresIn:
                      type: integer
                      minimum: 1
                      maximum: 600
          responses:
            "201":
              description: The registration operation, with its link.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Operation"
            "400":
              $ref: "#/components/responses/BadRequest"
            "401":
              $ref: "#/components/responses/SessionUnauthorized"
            "409":
              $ref: "#/components/responses/Conflict"
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              $ref: "#/components/responses/Unprocessable"
      /oob/sign-in:
        get:
          tags: [sessions]
          operationId: phoneSignInStart
          summary: "Sign in on this computer with your phone: the page that asks for the user name."
          security: []
          responses:
            "200":
              description: The page.
              content:
                text/html:
                  schema:
                    type: string
        post:
          tags: [sessions]
          operationId: phoneSignInBegin
          summary: Sends an authentication operation to the user's enrolled phone and redirects to its page.
          security: []
          requestBody:
            required: true
            content:
              application/x-www-form-urlencoded:
                schema:
                  type: object
                  properties:
                    user:
                      type: string
          responses:
            "303":
              description: To `/oob/sign-in/{operationID}`; sets the HttpOnly `handover_oob_browser` cookie.
            "413":
              $ref: "#/components/responses/PayloadTooLarge"
            "422":
              description: No user name, or no phone enrolled for it; the page again.
              content:
                text/html:
                  schema:
                    type: string
            "429":
              description: Too many requests from this address or for this user; `Retry-After` says when to try again.
              headers:
                Retry-After:
                  schema:
                    type: integer
              content:
                text/html:
                  schema:
                    type: string
      /oob/sign-in/{operationID}:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        get:
          tags: [sessions]
          operationId: phoneSignInPage
          summary: The QR code, the link and the number; follows the operation and signs the browser in when the phone approves.
          description: Only the browser that began the sign-in (its `handover_oob_browser` cookie) sees it; any other gets a 404.
          security: []
          responses:
            "200":
              description: The page.
              content:
                text/html:
                  schema:
                    type: string
            "400":
              $ref: "#/components/responses/BadRequest"
            "404":
              $ref: "#/components/responses/NotFound"
      /oob/sign-in/{operationID}/events:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        get:
          tags: [sessions]
          operationId: phoneSignInEvents
          summary: The page's live status (Server-Sent Events, as followOperation), for the browser that began it.
          security: []
          responses:
            "200":
              description: The stream of operation events.
              content:
                text/event-stream:
                  schema:
                    $ref: "#/components/schemas/OperationEvent"
            "400":
              $ref: "#/components/responses/BadRequest"
            "404":
              $ref: "#/components/responses/NotFound"
      /oob/sign-in/{operationID}/session:
        parameters:
          - $ref: "#/components/parameters/OperationID"
        post:
          tags: [sessions]
          operationId: phoneSignInCollectSession
          summary: After the phone approved, signs this browser in (once).
          description: Sets the HttpOnly `handover_web_session` cookie (an access token) and answers the user's handle.
          security: []
          responses:
            "200":
              description: Signed in.
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: false
                    required: [user]
                    properties:
                      user:
                        type: string
            "400":
              $ref: "#/components/responses/BadRequest"
            "404":
              $ref: "#/components/responses/NotFound"
            "409":
              $ref: "#/components/responses/Conflict"
    components:
      securitySchemes:
        sessionAuth:
          type: http
          scheme: bearer
          bearerFormat: JWT
          description: |
            A user's access token from `POST /auth/apple` or `POST /auth/refresh`: an ES256 JWT
            that lives the session TTL (300 s by default).
        bearerAuth:
          type: http
          scheme: bearer
          bearerFormat: hov_…
          description: |
            An API key, `hov_` and 43 base64url characters. `handover serve` prints an admin key on
            its first start; `handover admin create-key` makes more; `POST /api/v1/devices` makes a
            device's key.
      headers:
        ETag:
          description: A strong ETag of the body.
          schema:
            type: string
      parameters:
        IfNoneMatch:
          name: If-None-Match
          in: header
          required: false
          description: An ETag from an earlier response, or `*`; a match is answered with 304.
          schema:
            type: string
        AppID:
          name: appID
          in: path
          required: true
          description: An app id; anything else is a 400 (`invalid_id`).
          schema:
            type: string
            format: uuid
        DeviceID:
          name: deviceID
          in: path
          required: true
          description: A device id; anything else is a 400 (`invalid_id`).
          schema:
            type: string
            format: uuid
        WebhookID:
          name: webhookID
          in: path
          required: true
          description: A webhook id; anything else is a 400 (`invalid_id`).
          schema:
            type: string
            format: uuid
        OperationID:
          name: operationID
          in: path
          required: true
          description: An operation id; anything else is a 400 (`invalid_id`).
          schema:
            type: string
            format: uuid
        RunID:
          name: runID
          in: path
          required: true
          description: A logout run id; anything else is a 400 (`invalid_id`).
          schema:
            type: string
            format: uuid
      responses:
        Gone:
          description: The operation has ended or expired (`expired`, `operation_ended`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        MailUnavailable:
          description: The email could not be sent (`mail_unavailable`); try again later.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        RateLimited:
          description: Too many attempts (`rate_limited`); `Retry-After` says when to try again.
          headers:
            Retry-After:
              schema:
                type: integer
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        OAuthError:
          description: An RFC 6749 error (`invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`).
          content:
            application/json:
              schema:
                type: object
                required: [error]
                properties:
                  error:
                    type: string
                  error_description:
                    type: string
        SessionUnauthorized:
          description: |
            No valid access token (`unauthorized`, `invalid_access_token` with the check that failed),
            or its session was signed out (`session_revoked`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        SignInRefused:
          description: |
            The sign-in or refresh was refused, with the reason: `invalid_identity_token`,
            `nonce_invalid`, `authorization_code_rejected`, `code_subject_mismatch`,
            `invalid_refresh_token`, `refresh_token_reused`, `session_revoked`, `session_expired` or
            `apple_grant_revoked`.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        NotConfigured:
          description: Sign in with Apple is not configured on this server (`not_configured`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        AppleUnavailable:
          description: Apple could not be reached (`apple_unavailable`); nothing was changed. Try again.
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        BadRequest:
          description: |
            A path id that is not a UUID (`invalid_id`), or a body that is not JSON or not of the
            expected shape (`invalid_json`, with `field` when one is at fault).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        Unauthorized:
          description: No valid API key (`unauthorized`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        Forbidden:
          description: The key's scope does not allow this (`forbidden`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        NotFound:
          description: No such resource (`not_found`), or for callbacks an unknown nonce (`unknown_callback`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        Conflict:
          description: |
            The request conflicts with the current state: an app name that exists already
            (`name_taken`), no target apps to log out (`no_apps`), or an item that already has its
            outcome (`already_recorded`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        PayloadTooLarge:
          description: The body is larger than 16 KB (`payload_too_large`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
        Unprocessable:
          description: |
            A field has a value the server does not accept (`invalid_field`, naming it in `field`),
            or the body is missing (`unprocessable_entity`).
          content:
            application/json:
              schema:
                $ref: "#/components/schemas/Error"
      schemas:
        RunEvent:
          type: object
          description: 'One Server-Sent Event: `event: run`, and `data`, the LogoutRun as JSON on one line.'
          required: [event, data]
          properties:
            event:
              type: string
              enum: [run]
            data:
              type: string
              example: '{"createdAt":"2026-05-01T08:30:00Z","deviceID":"…","id":"…","items":[],"status":"running"}'
        OperationEvent:
          type: object
          description: 'One Server-Sent Event: `event: operation`, and `data`, the Operation as JSON on one line.'
          required: [event, data]
          properties:
            event:
              type: string
              enum: [operation]
            data:
              type: string
        OperationInput:
          type: object
          required: [type, user, dispatcher]
          properties:
            type:
              type: string
              enum: [registration, authentication, transaction-confirmation, deregistration]
            user:
              type: string
              minLength: 1
              maxLength: 200
              description: The handle your system knows the user by (for enrollment from a session, the user's id).
            message:
              type: string
              description: For `transaction-confirmation` only, and required there; 1 to 1000 characters, no control or bidi-override characters but line breaks.
            dispatcher:
              type: string
              enum: [push, qr, link, x-callback-link]
            callbacks:
              type: object
              description: x-callback targets; each must pass the tenant's allowlist.
              properties:
                success:
                  type: string
                error:
                  type: string
                cancel:
                  type: string
            expiresIn:
              type: integer
              minimum: 1
              maximum: 600
              description: Seconds; 120 when absent.
            device:
              type: string
              description: The enrolled device to address; the user's most recently enrolled when absent. Not for a registration.
        Operation:
          type: object
          additionalProperties: false
          required: [id, type, user, status, dispatcher, createdAt, updatedAt, expiresAt]
          properties:
            id:
              type: string
              format: uuid
            type:
              type: string
              enum: [registration, authentication, transaction-confirmation, deregistration]
            user:
              type: string
            status:
              type: string
              enum: [created, dispatched, redeemed, succeeded, failed, cancelled, expired]
            dispatcher:
              type: string
              enum: [push, qr, link, x-callback-link]
            device:
              type: string
              description: The enrolled device it is sealed to; absent for a registration.
            message:
              type: string
            number:
              type: integer
              minimum: 10
              maximum: 99
              description: For `authentication`, the number the web page shows (number matching).
            createdAt:
              type: string
              format: date-time
            updatedAt:
              type: string
              format: date-time
            expiresAt:
              type: string
              format: date-time
            answeredBy:
              type: string
              description: The device whose answer ended it.
            failure:
              type: object
              additionalProperties: false
              required: [code, reason]
              properties:
                code:
                  type: string
                  example: wrong_number
                reason:
                  type: string
            dispatch:
              type: object
              additionalProperties: false
              description: Only in the answer to createOperation.
              properties:
                link:
                  type: string
                  description: The universal link (`…/oob/open#p=…`), or the custom-scheme x-callback-url link.
                qr:
                  type: object
                  additionalProperties: false
                  required: [svg, png]
                  properties:
                    svg:
                      type: string
                    png:
                      type: string
                push:
                  type: object
                  additionalProperties: false
                  required: [outcome, device]
                  properties:
                    outcome:
                      type: string
                      description: "`delivered`, `unregistered` (the token was turned off) or `failed: <reason>`."
                    device:
                      type: string
        CallbackAllowlist:
          type: object
          additionalProperties: false
          required: [hosts, schemes]
          properties:
            hosts:
              type: array
              items:
                type: string
            schemes:
              type: array
              items:
                type: string
        CallbackAllowlistInput:
          type: object
          required: [hosts]
          properties:
            hosts:
              type: array
              maxItems: 200
              description: Host names, or `*.suffix` for any subdomain.
              items:
                type: string
            schemes:
              type: array
              maxItems: 50
              description: Custom schemes x-callback targets may use (not http, https, javascript, data, file, vbscript, blob).
              items:
                type: string
        EnrolledDevice:
          type: object
          additionalProperties: false
          required: [id, user, signingKey, agreementKey, hasPushToken, pushTokenActive, enrolledAt]
          properties:
            id:
              type: string
            user:
              type: string
            signingKey:
              type: string
              description: base64url of the x9.63 P-256 public key.
            agreementKey:
              type: string
              description: base64url of the raw X25519 public key.
            hasPushToken:
              type: boolean
            pushTokenActive:
              type: boolean
            enrolledAt:
              type: string
              format: date-time
            deregisteredAt:
              type: string
              format: date-time
        RedeemRequest:
          type: object
          required: [operation, challenge, decision, signature, deviceID]
          description: See docs/out-of-band.md for the signed lines.
          properties:
            operation:
              type: string
            challenge:
              type: string
            decision:
              type: string
              enum: [approve, deny]
            number:
              type: integer
            signature:
              type: string
              description: base64url of the raw 64-byte ECDSA P-256 signature.
            deviceID:
              type: string
            keys:
              type: object
              description: For a registration, the keys being enrolled.
              required: [signingKey, agreementKey]
              properties:
                signingKey:
                  type: string
                agreementKey:
                  type: string
        PushTokenRegistration:
          type: object
          required: [deviceID, token, timestamp, signature]
          properties:
            deviceID:
              type: string
            token:
              type: string
              description: The APNs device token as hex.
            timestamp:
              type: integer
              description: UNIX seconds; within 5 minutes of the server's time.
            signature:
              type: string
        Nonce:
          type: object
          additionalProperties: false
          required: [nonce, expiresIn]
          properties:
            nonce:
              type: string
              description: 43 base64url characters; single use.
            expiresIn:
              type: integer
              description: Seconds the nonce stays valid (600).
        AppleSignInInput:
          type: object
          required: [identityToken, authorizationCode, nonce]
          properties:
            identityToken:
              type: string
              minLength: 1
              maxLength: 8192
              description: The identity token from `ASAuthorizationAppleIDCredential`, as UTF-8 text.
            authorizationCode:
              type: string
              minLength: 1
              maxLength: 1024
              description: The single-use authorization code, as UTF-8 text.
            nonce:
              type: string
              minLength: 16
              maxLength: 256
              description: The raw nonce from `POST /auth/apple/nonce`.
            scope:
              type: string
              description: Space-separated; `device_sso` also returns a device secret and an ID token.
            deviceID:
              type: string
              format: uuid
              description: The registered fleet device; its logout run ends the device session.
            fullName:
              type: object
              description: Apple sends the name at the first sign-in only.
              properties:
                givenName:
                  type: string
                  maxLength: 200
                familyName:
                  type: string
                  maxLength: 200
        RefreshInput:
          type: object
          required: [refreshToken]
          properties:
            refreshToken:
              type: string
              description: The latest refresh token of the session (`hrt_…`).
        SessionGrant:
          type: object
          additionalProperties: false
          required: [accessToken, refreshToken, expiresIn, tokenType, user]
          properties:
            accessToken:
              type: string
              description: "An ES256 JWT with a `kid`; send it as `Authorization: Bearer …`."
            refreshToken:
              type: string
              description: Single use; a second use signs the session out.
            expiresIn:
              type: integer
              description: Seconds the access token lives (the server's session TTL, 300 by default).
            tokenType:
              type: string
              enum: [Bearer]
            user:
              $ref: "#/components/schemas/Me"
            idToken:
              type: string
              description: With scope `device_sso`, an ID token carrying `sid` and `ds_hash`.
            deviceSecret:
              type: string
              description: With scope `device_sso`, at sign-in only; keep it where sibling apps can read it.
        Me:
          type: object
          additionalProperties: false
          required: [id]
          properties:
            id:
              type: string
              format: uuid
            email:
              type: string
        NotificationResult:
          type: object
          additionalProperties: false
          required: [status, event]
          properties:
            status:
              type: string
              enum: [processed, duplicate]
            event:
              type: string
              description: The event type, such as consent-revoked.
        Error:
          type: object
          additionalProperties: false
          required: [error, reason]
          properties:
            error:
              type: string
              description: A machine-readable code, such as invalid_field, not_found or unauthorized.
              example: invalid_field
            reason:
              type: string
              description: A sentence for people.
              example: "name: give 1 to 100 characters"
            field:
              type: string
              description: The request field at fault, as a path such as `appIDs[0]`.
              example: name
        AppInput:
          type: object
          required: [name, appIDs]
          properties:
            name:
              type: string
              minLength: 1
              maxLength: 100
              pattern: "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"
              description: Unique; 1 to 100 characters after trimming white space, no control characters.
              example: Notes
            role:
              type: string
              enum: [target, launcher]
              default: target
              description: target (an app to log out) or launcher (the app that starts logouts).
            appIDs:
              type: array
              minItems: 1
              description: Team ID, a dot, then bundle ID.
              items:
                type: string
                example: ABCDE12345.com.example.notes
            logoutAction:
              type: string
              description: Required for a target app, absent for a launcher. The https URL that logs the app out.
              example: https://notes.example.com/logout
            paths:
              type: array
              description: Path patterns the app claims on this server's domain.
              items:
                type: string
                minLength: 1
                maxLength: 1024
                example: /logout
            allowedCallbackHosts:
              type: array
              description: Hosts the app's callbacks may go to besides this server.
              items:
                type: string
            deadlineSeconds:
              type: integer
              minimum: 1
              maximum: 300
              default: 20
            maxReissues:
              type: integer
              minimum: 0
              maximum: 10
              default: 2
            androidPackage:
              type: string
              example: com.example.notes
            androidFingerprints:
              type: array
              description: SHA-256 signing-certificate fingerprints; required with androidPackage.
              items:
                type: string
        App:
          type: object
          additionalProperties: false
          required: [id, name, role, appIDs, paths, allowedCallbackHosts, deadlineSeconds, maxReissues, androidFingerprints, createdAt]
          properties:
            id:
              type: string
              format: uuid
            name:
              type: string
            role:
              type: string
              enum: [target, launcher]
            appIDs:
              type: array
              items:
                type: string
            logoutAction:
              type: string
              description: Present for target apps.
            paths:
              type: array
              items:
                type: string
            allowedCallbackHosts:
              type: array
              items:
                type: string
            deadlineSeconds:
              type: integer
            maxReissues:
              type: integer
            androidPackage:
              type: string
            androidFingerprints:
              type: array
              items:
                type: string
            createdAt:
              type: string
              format: date-time
        DeviceInput:
          type: object
          required: [name]
          properties:
            name:
              type: string
              minLength: 1
              maxLength: 100
              pattern: "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"
              description: 1 to 100 characters after trimming white space, no control characters.
              example: ward-7-phone-3
        Device:
          type: object
          additionalProperties: false
          required: [id, name, status, createdAt]
          properties:
            id:
              type: string
              format: uuid
            name:
              type: string
            status:
              type: string
              enum: [in_service, out_of_service]
              description: out_of_service after a run failed on it.
            createdAt:
              type: string
              format: date-time
            lastRunID:
              type: string
              format: uuid
        CreatedDevice:
          type: object
          additionalProperties: false
          required: [device, key]
          properties:
            device:
              $ref: "#/components/schemas/Device"
            key:
              type: string
              pattern: "^hov_"
              description: The device's API key (device scope), shown only now.
        WebhookInput:
          type: object
          required: [url, events]
          properties:
            url:
              type: string
              pattern: "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"
              description: An https URL (http only on loopback), no control characters.
              example: https://mdm.example.com/hooks/handover
            events:
              type: array
              minItems: 1
              items:
                $ref: "#/components/schemas/EventType"
            secret:
              type: string
              pattern: "^whsec_[A-Za-z0-9+/]{32,88}={0,2}$"
              description: The signing secret, `whsec_` and the base64 of 24 to 64 random bytes (Standard Webhooks); generated when left out.
        Webhook:
          type: object
          additionalProperties: false
          required: [id, url, events, createdAt]
          properties:
            id:
              type: string
              format: uuid
            url:
              type: string
            events:
              type: array
              items:
                $ref: "#/components/schemas/EventType"
            createdAt:
              type: string
              format: date-time
        CreatedWebhook:
          type: object
          additionalProperties: false
          required: [webhook, secret]
          properties:
            webhook:
              $ref: "#/components/schemas/Webhook"
            secret:
              type: string
              description: The signing secret, shown only now.
        EventType:
          type: string
          enum: [run.completed, run.failed, device.out_of_service, operation.suspicious]
        OutOfBandLock:
          type: object
          additionalProperties: false
          required: [user, operationID, lockedAt]
          properties:
            user:
              type: string
            operationID:
              type: string
              format: uuid
              description: The operation the user reported.
            lockedAt:
              type: string
              format: date-time
        Delivery:
          type: object
          additionalProperties: false
          required: [id, event, status, attempts, createdAt]
          properties:
            id:
              type: string
              format: uuid
            event:
              $ref: "#/components/schemas/EventType"
            status:
              type: string
              enum: [pending, delivered, failed]
            attempts:
              type: integer
              minimum: 0
            nextAttemptAt:
              type: string
              format: date-time
              description: Present while pending.
            lastStatusCode:
              type: integer
            lastError:
              type: string
            createdAt:
              type: string
              format: date-time
            deliveredAt:
              type: string
              format: date-time
        RunInput:
          type: object
          properties:
            apps:
              type: array
              description: The target apps to log out, in order; every target app when left out.
              items:
                type: string
                format: uuid
        LogoutRun:
          type: object
          additionalProperties: false
          required: [id, deviceID, status, createdAt, items]
          properties:
            id:
              type: string
              format: uuid
            deviceID:
              type: string
              format: uuid
            status:
              type: string
              enum: [running, completed, failed]
            createdAt:
              type: string
              format: date-time
            finishedAt:
              type: string
              format: date-time
            items:
              type: array
              items:
                $ref: "#/components/schemas/LogoutItem"
        LogoutItem:
          type: object
          additionalProperties: false
          required: [id, appID, app, position, status, attempts, issuedAt, deadlineAt]
          properties:
            id:
              type: string
              format: uuid
            appID:
              type: string
              format: uuid
            app:
              type: string
              description: The app's name.
            position:
              type: integer
              minimum: 0
            status:
              type: string
              enum: [pending, succeeded, failed, timed_out]
            attempts:
              type: integer
              minimum: 1
              description: How many times the link was issued.
            issuedAt:
              type: string
              format: date-time
            deadlineAt:
              type: string
              format: date-time
            finishedAt:
              type: string
              format: date-time
            reportedBy:
              type: string
              enum: [browser, launcher]
            link:
              type: string
              description: The ULC link to open now; only while the item is pending.
        CallbackReport:
          type: object
          required: [url]
          properties:
            url:
              type: string
              description: The callback URL the launcher received, `<public URL>/ulc/cb/<run>/<item>/success|error?n=<nonce>`.
        CallbackReportResult:
          type: object
          additionalProperties: false
          required: [recorded, status]
          properties:
            recorded:
              type: boolean
            status:
              type: string
              enum: [succeeded, failed]
            app:
              type: string
    """#
}
