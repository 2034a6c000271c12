import Foundation

/// A verified server-to-server notification from Sign in with Apple.
///
/// Apple retries deliveries that were not answered 200, so the same notification can arrive more
/// than once: process each ``jwtID`` once.
public struct ServerNotification: Sendable, Equatable {
    /// `jti`: the notification's unique id.
    public var jwtID: String
    /// `iat`.
    public var issuedAt: Date
    /// The client id of `aud` that matched.
    public var audience: String
    /// The event (`events`).
    public var event: ServerNotificationEvent

    public init(jwtID: String, issuedAt: Date, audience: String, event: ServerNotificationEvent) {
        self.jwtID = jwtID
        self.issuedAt = issuedAt
        self.audience = audience
        self.event = event
    }
}

/// The one event a notification carries.
public struct ServerNotificationEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The user stopped forwarding from their private relay address.
        case emailDisabled
        /// The user resumed forwarding to their private relay address.
        case emailEnabled
        /// The user stopped using Sign in with Apple with your app: sign them out everywhere.
        case consentRevoked
        /// The user deleted their Apple account: delete or disassociate their data.
        case accountDelete
        /// A type this module does not know yet, kept as Apple sent it.
        case other(String)

        init(rawValue: String) {
            switch rawValue {
            case "email-disabled": self = .emailDisabled
            case "email-enabled": self = .emailEnabled
            case "consent-revoked": self = .consentRevoked
            case "account-delete": self = .accountDelete
            default: self = .other(rawValue)
            }
        }

        /// The string Apple sends (`email-disabled`, …).
        public var rawValue: String {
            switch self {
            case .emailDisabled: "email-disabled"
            case .emailEnabled: "email-enabled"
            case .consentRevoked: "consent-revoked"
            case .accountDelete: "account-delete"
            case .other(let raw): raw
            }
        }
    }

    public var kind: Kind
    /// The user (`sub`), the same identifier as an identity token's subject.
    public var subject: String
    /// `event_time`, sent in milliseconds since 1970.
    public var eventTime: Date
    /// The relay address concerned, for the email events.
    public var email: String?
    /// `is_private_email` (bool or "true"/"false").
    public var isPrivateEmail: Bool?

    public init(kind: Kind, subject: String, eventTime: Date, email: String? = nil, isPrivateEmail: Bool? = nil) {
        self.kind = kind
        self.subject = subject
        self.eventTime = eventTime
        self.email = email
        self.isPrivateEmail = isPrivateEmail
    }
}

/// The JSON of `events` (itself a string inside the JWT).
struct ServerNotificationEventPayload: Codable {
    var type: String
    var sub: String
    var event_time: Double
    var email: String?
    var is_private_email: LenientBool?
}

/// The notification JWT's own claims beyond the registered ones.
struct ServerNotificationPayload: AppleRegisteredClaims {
    var iss: String
    var aud: AudienceList
    var exp: NumericDate
    var jti: String
    var iat: NumericDate
    var events: EventsClaim

    /// `events`: a JSON string holding one object; an object is accepted too.
    struct EventsClaim: Codable {
        var event: ServerNotificationEventPayload

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                event = try JSONDecoder().decode(ServerNotificationEventPayload.self, from: Data(text.utf8))
            } else {
                event = try container.decode(ServerNotificationEventPayload.self)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(event)
        }
    }
}
