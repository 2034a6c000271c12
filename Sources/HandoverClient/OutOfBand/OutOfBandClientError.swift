import Foundation
import LinkCallbacks
import OutOfBand

/// Why the phone refused an operation before showing it, or an answer before sending it.
public enum OutOfBandClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link, QR code or push does not hold a payload this device can read (see the
    /// `OutOfBandError`: which field, and what is accepted).
    case unreadable(OutOfBandError)
    /// The operation's redeem URL is not on this app's server.
    case redeemHostNotAllowed(String)
    /// An `x-success`, `x-error` or `x-cancel` target is not on the allowlist.
    case callbackNotAllowed(LinkError)
    /// The operation expired before it was shown.
    case expired(at: Date)
    /// The operation was answered on this device already.
    case alreadyAnswered(operation: String)
    /// Number matching is on, and the approval named no number, or one that was not offered.
    case numberNotOffered(Int?, choices: [Int])

    public var description: String {
        switch self {
        case .unreadable(let error): "The request cannot be read: \(error)"
        case .redeemHostNotAllowed(let host): "The request answers to \(host), which is not this app's server."
        case .callbackNotAllowed(let error): "The request names a return target this app does not allow: \(error)"
        case .expired(let at): "The request expired at \(at.formatted(date: .omitted, time: .standard))."
        case .alreadyAnswered(let operation): "The request \(operation) was answered already."
        case .numberNotOffered(let number, let choices):
            "Pick one of \(choices.map(String.init).joined(separator: ", ")); \(number.map(String.init) ?? "no number") is not among them."
        }
    }
}
