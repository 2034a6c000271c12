/// The user's answer on the phone.
public enum OperationDecision: String, Sendable, Codable, CaseIterable, Hashable {
    /// The user approved (and, with number matching, picked a number).
    case approve
    /// The user refused. The server records the operation as cancelled; the phone opens the
    /// `x-cancel` target at once.
    case deny
    /// The user refused and says the request was not theirs ("this was not me"). The server
    /// records the operation as cancelled, marks it suspicious, alerts by webhook and locks
    /// out-of-band sign-in for that user until an admin clears it; the phone opens `x-cancel`.
    case report
}
