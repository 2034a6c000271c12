extension OpenAPIDocument {
    /// The schemas of errors, the registry, webhooks and logout runs.
    static let fleetSchemas = #"""
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
