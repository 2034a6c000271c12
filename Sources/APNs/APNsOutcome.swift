import Foundation

/// What APNs did with a push it accepted or definitively refused for this device.
public enum APNsOutcome: Sendable, Hashable {
    /// 200: APNs accepted the push. `apnsID` is its `apns-id`.
    case delivered(apnsID: String)
    /// 410: the token is no longer valid for the topic (the app was deleted, or the user turned
    /// notifications off). Deactivate the token, and never send to it again; `since` is when
    /// APNs learned it (Apple's `timestamp`).
    case unregistered(since: Date?, apnsID: String?)
}

/// Why a push was not sent or not accepted.
public enum APNsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is over APNs's limit; refused before sending.
    case payloadTooLarge(bytes: Int, limit: Int)
    /// An argument APNs would refuse; refused before sending.
    case invalidRequest(field: String, detail: String)
    /// APNs refused the push for a reason that retrying will not fix (400, 403, 404, 405, 413):
    /// fix the request, the token or the key.
    case rejected(status: Int, reason: APNsReason, apnsID: String?)
    /// Retryable failures (429, 5xx, broken connections) went on for every attempt.
    case gaveUp(attempts: Int, lastFailure: APNsAttemptFailure)

    public var description: String {
        switch self {
        case .payloadTooLarge(let bytes, let limit):
            "the APNs payload is \(bytes) bytes, over the limit of \(limit); nothing was sent"
        case .invalidRequest(let field, let detail):
            "\(field): \(detail); nothing was sent"
        case .rejected(let status, let reason, _):
            "APNs refused the push with HTTP \(status) \(reason); retrying will not help"
        case .gaveUp(let attempts, let lastFailure):
            "APNs did not accept the push after \(attempts) attempt\(attempts == 1 ? "" : "s"); the last failure: \(lastFailure)"
        }
    }
}

/// One failed attempt that may succeed later.
public enum APNsAttemptFailure: Sendable, Hashable, CustomStringConvertible {
    /// 429 or 5xx, with Apple's reason.
    case status(Int, APNsReason)
    /// No answer: the connection failed or timed out.
    case transport(String)

    public var description: String {
        switch self {
        case .status(let status, let reason): "HTTP \(status) \(reason)"
        case .transport(let detail): "no answer (\(detail))"
        }
    }
}
