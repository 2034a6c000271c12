/// The user's answer on the phone.
public enum OperationDecision: String, Sendable, Codable, CaseIterable, Hashable {
    /// The user approved (and, with number matching, picked a number).
    case approve
    /// The user refused. The server records the operation as cancelled; the phone opens the
    /// `x-cancel` target at once.
    case deny
}
