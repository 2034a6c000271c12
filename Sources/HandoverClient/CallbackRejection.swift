/// Why a ``LogoutInitiator`` refused a callback URL.
public enum CallbackRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not under the configured callback base, or not `<run>/<app>/success|error?n=…`.
    case notACallback(String)
    /// The nonce was never issued.
    case unknownNonce
    /// The nonce belongs to an attempt that is already settled (answered or timed out).
    case usedNonce
    /// The nonce was issued for another app or run than the URL names.
    case mismatchedNonce

    public var description: String {
        switch self {
        case .notACallback(let detail): "this is not a callback of this launcher: \(detail)"
        case .unknownNonce: "the callback's nonce was never issued by this launcher"
        case .usedNonce: "the callback's nonce was already used or its attempt timed out"
        case .mismatchedNonce: "the callback's nonce was issued for another app or run"
        }
    }
}
