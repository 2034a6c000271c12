/// What an out-of-band operation asks the phone to do.
public enum OperationType: String, Sendable, Codable, CaseIterable, Hashable {
    /// Enroll this device (its keys) with an account. The device is not known yet, so the
    /// envelope travels unsealed (QR code or link; never push, which needs a known device).
    case registration
    /// Sign in somewhere else (a desktop browser, a kiosk) by approving on the phone.
    case authentication
    /// Approve a transaction whose text the phone shows (``OperationEnvelope/message``).
    case transactionConfirmation = "transaction-confirmation"
    /// Remove this device's enrollment.
    case deregistration

    /// The accepted spellings, for error messages.
    static let acceptedText = allCases.map(\.rawValue).joined(separator: ", ")
}
