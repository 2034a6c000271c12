extension OpenAPIDocument {
    /// Sign in with Apple, the server's sessions, email-link sign-in and Native SSO.
    static let sessionPaths = #"""
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
    """#
}
