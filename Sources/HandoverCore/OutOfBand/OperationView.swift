import Foundation
import HandoverSchema

/// An out-of-band operation as the API shows it.
package struct OperationView: Codable, Hashable, Sendable {
    package struct Failure: Codable, Hashable, Sendable {
        /// An ``OutOfBand/AnswerRejection`` code (`wrong_number`, `expired`…).
        package var code: String
        package var reason: String
    }

    /// How the operation was sent; only in the answer to `POST /api/v1/operations`.
    package struct Dispatch: Codable, Hashable, Sendable {
        package struct QRCodeURLs: Codable, Hashable, Sendable {
            package var svg: String
            package var png: String
        }

        package struct Push: Codable, Hashable, Sendable {
            /// `delivered`, `unregistered` (the token was turned off) or `failed: <reason>`.
            package var outcome: String
            package var device: String
        }

        /// The link the phone opens: a universal link, or for `x-callback-link` a custom-scheme link.
        package var link: String?
        /// The QR code holding the universal link (dispatcher `qr`).
        package var qr: QRCodeURLs?
        package var push: Push?
    }

    package var id: UUID
    package var type: String
    package var user: String
    package var status: String
    package var dispatcher: String
    /// The enrolled device the operation was sealed to; nil for a registration.
    package var device: String?
    package var message: String?
    /// For authentication: the number the web page shows and the user must pick on the phone.
    package var number: Int?
    package var createdAt: Date
    package var updatedAt: Date
    package var expiresAt: Date
    /// The device whose answer ended the operation.
    package var answeredBy: String?
    package var failure: Failure?
    package var dispatch: Dispatch?

    package init(_ operation: OutOfBandOperation, dispatch: Dispatch? = nil) throws {
        id = try operation.storedID
        type = operation.type
        user = operation.user
        status = operation.status
        dispatcher = operation.dispatcher
        device = operation.deviceID
        message = operation.message
        number = operation.correctNumber
        createdAt = operation.createdAt
        updatedAt = operation.updatedAt
        expiresAt = operation.expiresAt
        answeredBy = operation.answeredBy
        if let code = operation.failureCode {
            failure = Failure(code: code, reason: operation.failureReason ?? code)
        }
        self.dispatch = dispatch
    }
}

/// An enrolled phone as the API shows it.
package struct EnrolledDeviceView: Codable, Hashable, Sendable {
    package var id: String
    package var user: String
    package var signingKey: String
    package var agreementKey: String
    package var hasPushToken: Bool
    package var pushTokenActive: Bool
    package var enrolledAt: Date
    package var deregisteredAt: Date?

    package init(_ device: EnrolledDevice) {
        id = device.id ?? ""
        user = device.user
        signingKey = device.signingKey
        agreementKey = device.agreementKey
        hasPushToken = device.pushToken != nil
        pushTokenActive = device.pushToken != nil && device.pushTokenActive
        enrolledAt = device.enrolledAt
        deregisteredAt = device.deregisteredAt
    }
}

/// The tenant's callback allowlist as the API shows it.
package struct CallbackAllowlistView: Codable, Hashable, Sendable {
    package var hosts: [String]
    package var schemes: [String]
}

/// A user whose out-of-band sign-in is locked after a "this was not me".
package struct OutOfBandLockView: Codable, Hashable, Sendable {
    package var user: String
    package var operationID: UUID
    package var lockedAt: Date

    package init(user: String, operationID: UUID, lockedAt: Date) {
        self.user = user
        self.operationID = operationID
        self.lockedAt = lockedAt
    }
}
