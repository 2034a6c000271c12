extension OpenAPIDocument {
    /// Out-of-band operations: the admin API, the phone's routes and the sign-in page.
    static let operationPaths = #"""
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
    """#
}
