extension OpenAPIDocument {
    /// The health and metrics routes, the association files, the callback page, the registry, logout runs and webhooks.
    static let fleetPaths = #"""
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
    """#
}
