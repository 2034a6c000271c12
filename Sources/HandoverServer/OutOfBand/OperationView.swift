import Foundation
import HandoverCore
import Vapor

/// An out-of-band operation as the API shows it.
struct OperationView: Content, Hashable {
    struct Failure: Content, Hashable {
        /// An ``OutOfBand/AnswerRejection`` code (`wrong_number`, `expired`…).
        var code: String
        var reason: String
    }

    /// How the operation was sent; only in the answer to `POST /api/v1/operations`.
    struct Dispatch: Content, Hashable {
        struct QRCodeURLs: Content, Hashable {
            var svg: String
            var png: String
        }

        struct Push: Content, Hashable {
            /// `delivered`, `unregistered` (the token was turned off) or `failed: <reason>`.
            var outcome: String
            var device: String
        }

        /// The link the phone opens: a universal link, or for `x-callback-link` a custom-scheme link.
        var link: String?
        /// The QR code holding the universal link (dispatcher `qr`).
        var qr: QRCodeURLs?
        var push: Push?
    }

    var id: UUID
    var type: String
    var user: String
    var status: String
    var dispatcher: String
    /// The enrolled device the operation was sealed to; nil for a registration.
    var device: String?
    var message: String?
    /// For authentication: the number the web page shows and the user must pick on the phone.
    var number: Int?
    var createdAt: Date
    var updatedAt: Date
    var expiresAt: Date
    /// The device whose answer ended the operation.
    var answeredBy: String?
    var failure: Failure?
    var dispatch: Dispatch?

    init(_ operation: OutOfBandOperation, dispatch: Dispatch? = nil) throws {
        id = try operation.requireID()
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
struct EnrolledDeviceView: Content, Hashable {
    var id: String
    var user: String
    var signingKey: String
    var agreementKey: String
    var hasPushToken: Bool
    var pushTokenActive: Bool
    var enrolledAt: Date
    var deregisteredAt: Date?

    init(_ device: EnrolledDevice) {
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
struct CallbackAllowlistView: Content, Hashable {
    var hosts: [String]
    var schemes: [String]
}

/// A user whose out-of-band sign-in is locked after a "this was not me".
struct OutOfBandLockView: Content, Hashable {
    var user: String
    var operationID: UUID
    var lockedAt: Date
}
