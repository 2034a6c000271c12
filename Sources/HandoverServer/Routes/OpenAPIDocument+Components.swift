extension OpenAPIDocument {
    /// The security scheme, headers, parameters and responses that the paths refer to.
    static let sharedComponents = #"""
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
    """#
}
