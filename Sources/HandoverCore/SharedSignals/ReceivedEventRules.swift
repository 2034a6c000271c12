import Foundation

/// What the Shared Signals receiver makes of a SET, as values (issue 65): whether its claims are
/// acceptable once its signature verified (RFC 8417 §2, SSF 1.0 §4.1), and what it asks this
/// server to do. ``SharedSignalsReceiver`` verifies the signature, asks these, acts and records.
package enum ReceivedEventRules {
    /// What a SET asks this server to do.
    package enum Action: Sendable, Equatable {
        /// End the person's sessions and hand over the devices they hold (``PersonHandOver``),
        /// giving `reason`.
        case handOver(SubjectIdentifier, reason: String)
        /// Not a type this server acts on, or no person named: acknowledged and ignored (SSF 1.0
        /// §4.1 leaves processing to the receiver).
        case ignore
    }

    /// Clock skew allowed on `iat` in the future.
    package static let leeway: TimeInterval = 60

    /// The JOSE header's `typ` (RFC 8417 §2.3, SSF 1.0 §4.1.1).
    package static func checkType(_ typ: String?) throws(SETRefusal) {
        guard typ?.lowercased() == "secevent+jwt" || typ?.lowercased() == "application/secevent+jwt" else {
            throw .invalidRequest("the JOSE header's typ is '\(typ ?? "absent")', not secevent+jwt (RFC 8417 §2.3, SSF 1.0 §4.1.1)")
        }
    }

    /// The claims of a SET whose signature verified: `iss` the configured transmitter, `aud` this
    /// server, `iat` neither stale nor in the future, a `jti`, one event, a subject for an event
    /// acted on, no `sub` and no `exp`. Each refusal an RFC 8935 §2.4 code.
    package static func check(_ claims: ReceivedSecurityEvent, issuer: String, audiences: Set<String>, now: Date,
                              maximumAge: TimeInterval) throws(SETRefusal) {
        guard let iss = claims.iss, iss == issuer else {
            throw .invalidIssuer("iss '\((claims.iss ?? "absent").prefix(200))' is not this receiver's transmitter")
        }
        guard let aud = claims.aud?.values, aud.contains(where: audiences.contains) else {
            throw .invalidAudience("aud \(claims.aud?.values.description.prefix(200) ?? "absent") does not name this server (\(audiences.sorted().joined(separator: " or ")))")
        }
        let now = now.timeIntervalSince1970
        guard let iat = claims.iat else { throw .invalidRequest("iat is missing (RFC 8417 §2.2)") }
        guard TimeInterval(iat) <= now + leeway, now - TimeInterval(iat) <= maximumAge else {
            throw .invalidRequest("iat \(iat) is stale or in the future: accepted within \(Int(maximumAge)) s before now (\(Int(now)))")
        }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256, !jti.containsControlCharacter else {
            throw .invalidRequest("jti is missing or longer than 256 characters (RFC 8417 §2.2)")
        }
        guard claims.sub == nil else { throw .invalidRequest("sub must not be present (SSF 1.0 §4.1.2)") }
        guard claims.exp == nil else { throw .invalidRequest("exp must not be present (SSF 1.0 §4.1.7)") }
        guard let events = claims.events, events.count == 1 else { throw .invalidRequest("events must hold one event (SSF 1.0 §4.2.1)") }
        if SecurityEventType.handOverTriggers.contains(events.keys.first ?? ""), claims.sub_id == nil {
            throw .invalidRequest("sub_id is missing: whom does the event concern? (SSF 1.0 §3)")
        }
    }

    /// CAEP `session-revoked` and `credential-change`, RISC `account-disabled`, `account-purged`,
    /// `credential-compromise` and `sessions-revoked` about a person: hand them over. Anything
    /// else: ignore.
    package static func action(for claims: ReceivedSecurityEvent) -> Action {
        let type = claims.events?.keys.first ?? ""
        guard SecurityEventType.handOverTriggers.contains(type), let person = claims.sub_id?.person else { return .ignore }
        return .handOver(person, reason: "identity provider: \(shortName(type))")
    }

    /// The last path segment of an event type's URI (`account-disabled`).
    package static func shortName(_ type: String) -> String {
        String(type.split(separator: "/").last ?? Substring(type))
    }
}
