extension OpenAPIDocument {
    /// The schemas of out-of-band operations and of sessions (the start of `components.schemas`).
    static let operationAndSessionSchemas = #"""
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
    """#
}
