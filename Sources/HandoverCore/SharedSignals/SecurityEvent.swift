import Foundation

/// One event's members inside a SET's `events` claim: CAEP 1.0 §2's optional claims and the
/// event-specific ones of the types Handover sends (CAEP §3.1, §3.3, §3.5; SSF 1.0 §8.1.4.1).
/// A member that is nil is left out.
package struct SecurityEventClaims: Codable, Sendable, Equatable {
    package var event_timestamp: Int?
    package var initiating_entity: String?
    package var reason_admin: [String: String]?
    package var previous_status: String?
    package var current_status: String?
    package var credential_type: String?
    package var change_type: String?
    package var friendly_name: String?
    package var state: String?

    package init(event_timestamp: Int? = nil, initiating_entity: String? = nil, reason_admin: [String: String]? = nil,
                 previous_status: String? = nil, current_status: String? = nil, credential_type: String? = nil,
                 change_type: String? = nil, friendly_name: String? = nil, state: String? = nil) {
        self.event_timestamp = event_timestamp
        self.initiating_entity = initiating_entity
        self.reason_admin = reason_admin
        self.previous_status = previous_status
        self.current_status = current_status
        self.credential_type = credential_type
        self.change_type = change_type
        self.friendly_name = friendly_name
        self.state = state
    }
}

/// A security event this server owes the streams that carry its type: what is stored in the
/// outbox, the SET's claims but its `iss` and `aud`, which are set when it is signed for its
/// stream (``SecurityEventToken``).
package struct SecurityEvent: Codable, Sendable, Equatable {
    package var jti: String
    package var iat: Int
    /// SSF 1.0 §4.1.8: the same for every SET one change caused (a hand-over's run).
    package var txn: String?
    package var sub_id: SubjectIdentifier
    package var events: [String: SecurityEventClaims]
    /// The app (bundle id) whose session the event concerns, when it concerns one: whose backend
    /// may hear of it (``SignalsAudience``). Not part of the SET, nor stored with it.
    package var app: String?

    enum CodingKeys: String, CodingKey {
        case jti, iat, txn, sub_id, events
    }

    package init(type: String, subject: SubjectIdentifier, claims: SecurityEventClaims, txn: String? = nil, app: String? = nil, at: Date) {
        jti = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        iat = Int(at.timeIntervalSince1970)
        self.txn = txn
        sub_id = subject
        self.app = app
        var claims = claims
        if claims.event_timestamp == nil { claims.event_timestamp = iat }
        events = [type: claims]
    }

    /// The event's type: the one member of `events`.
    package var type: String { events.keys.first ?? "" }

    /// CAEP §3.1: a session of Handover's ended. The subject names the session, its person (by
    /// Handover's issuer and user id, and by email when known) and the fleet device it was on;
    /// `app` is the session's app, whose backend may hear of it.
    package static func sessionRevoked(session: UUID, user: UUID, email: String?, device: UUID?, issuer: String, reason: String,
                                       run: UUID?, app: String? = nil, at: Date) -> SecurityEvent {
        SecurityEvent(type: SecurityEventType.sessionRevoked,
                      subject: .complex(user: person(user, email: email, issuer: issuer), device: device.map { .opaque($0.uuidString.lowercased()) },
                                        session: .opaque(session.uuidString.lowercased()), tenant: nil),
                      claims: SecurityEventClaims(initiating_entity: run == nil ? "user" : "policy", reason_admin: ["en": reason]),
                      txn: run?.uuidString.lowercased(), app: app, at: at)
    }

    /// CAEP §3.5: a fleet device became not compliant (out of service, overdue) or compliant again.
    package static func deviceCompliance(device: UUID, compliant: Bool, reason: String, run: UUID?, at: Date) -> SecurityEvent {
        SecurityEvent(type: SecurityEventType.deviceComplianceChange,
                      subject: .complex(user: nil, device: .opaque(device.uuidString.lowercased()), session: nil, tenant: nil),
                      claims: SecurityEventClaims(initiating_entity: "policy", reason_admin: ["en": reason],
                                                  previous_status: compliant ? "not-compliant" : "compliant",
                                                  current_status: compliant ? "compliant" : "not-compliant"),
                      txn: run?.uuidString.lowercased(), at: at)
    }

    /// CAEP §3.3: a device's credential was revoked: its key, or a Native SSO device secret.
    package static func credentialRevoked(device: UUID?, user: UUID?, email: String?, issuer: String, name: String, at: Date) -> SecurityEvent {
        SecurityEvent(type: SecurityEventType.credentialChange,
                      subject: .complex(user: user.map { person($0, email: email, issuer: issuer) }, device: device.map { .opaque($0.uuidString.lowercased()) },
                                        session: nil, tenant: nil),
                      claims: SecurityEventClaims(initiating_entity: "admin", credential_type: "app", change_type: "revoke", friendly_name: name), at: at)
    }

    /// SSF §8.1.4.1: the verification event, about the stream itself.
    package static func verification(stream: String, state: String?, at: Date) -> SecurityEvent {
        var event = SecurityEvent(type: SecurityEventType.verification, subject: .opaque(stream), claims: SecurityEventClaims(state: state), at: at)
        event.events[SecurityEventType.verification]?.event_timestamp = nil
        return event
    }

    private static func person(_ user: UUID, email: String?, issuer: String) -> SubjectIdentifier {
        let id = SubjectIdentifier.issuerSubject(issuer: issuer, subject: user.uuidString)
        return email.map { .aliases([id, .email($0)]) } ?? id
    }
}

/// A SET as it is signed for one stream (RFC 8417 §2.2): the event with the transmitter's `iss`
/// and the stream's `aud`. SSF 1.0 §4.1.2 and §4.1.6: no `sub`, no `exp`.
package struct SecurityEventToken: Codable, Sendable {
    package var iss: String
    package var aud: String
    package var jti: String
    package var iat: Int
    package var txn: String?
    package var sub_id: SubjectIdentifier
    package var events: [String: SecurityEventClaims]

    package init(_ event: SecurityEvent, issuer: String, audience: String) {
        iss = issuer
        aud = audience
        jti = event.jti
        iat = event.iat
        txn = event.txn
        sub_id = event.sub_id
        events = event.events
    }

    /// The JOSE header's `typ` (RFC 8417 §2.3).
    package static let type = "secevent+jwt"
}
