/// The security event types Handover sends and acts on, by their URIs: CAEP 1.0 (§3), RISC 1.0
/// (§2) and SSF 1.0's own (§8.1.4).
package enum SecurityEventType {
    package static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    package static let risc = "https://schemas.openid.net/secevent/risc/event-type/"

    /// CAEP §3.1: a session ended.
    package static let sessionRevoked = caep + "session-revoked"
    /// CAEP §3.3: a credential was created, changed, revoked or deleted.
    package static let credentialChange = caep + "credential-change"
    /// CAEP §3.5: a device became compliant or not.
    package static let deviceComplianceChange = caep + "device-compliance-change"
    /// SSF §8.1.4.1: the answer to a verification request.
    package static let verification = "https://schemas.openid.net/secevent/ssf/event-type/verification"
    /// RISC 1.0 §2.2, §2.3, §2.7 and §2.11 (and CAEP's session and credential events): what makes a
    /// receiving Handover end a person's sessions and hand their device over.
    package static let accountDisabled = risc + "account-disabled"
    package static let accountPurged = risc + "account-purged"
    package static let credentialCompromise = risc + "credential-compromise"
    package static let sessionsRevoked = risc + "sessions-revoked"

    /// What a stream of this server can carry (the verification event goes on every stream); RISC's
    /// account-disabled and account-purged when the directory deprovisions a person (issue 67).
    package static let supported = [sessionRevoked, deviceComplianceChange, credentialChange, accountDisabled, accountPurged]

    /// What a receiving Handover acts on: each ends the person's sessions and hands over the
    /// device they hold.
    package static let handOverTriggers: Set<String> = [sessionRevoked, credentialChange, accountDisabled, accountPurged,
                                                        credentialCompromise, sessionsRevoked]
}
