import LinkCallbacks

/// Why a ``LogoutReceiver`` refused a link (`handle(_:)` returned `false`).
public enum ReceiverRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The link is not a well-formed ULC, or its action breaks the policy.
    case invalidLink(LinkError)
    /// The signed-requests check failed.
    case signature(SignatureRejection)
    /// The journal could not be written, so the link was not accepted (nothing is acknowledged
    /// before it is durable).
    case journalUnavailable(JournalError)
    /// The receiver was terminated.
    case terminated

    public var description: String {
        switch self {
        case .invalidLink(let error): "the link was refused: \(error)"
        case .signature(let rejection): "the signed request was refused: \(rejection)"
        case .journalUnavailable(let error): "the link could not be journaled, so it was not accepted: \(error)"
        case .terminated: "the receiver was terminated"
        }
    }
}
