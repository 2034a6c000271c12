import Foundation

/// A subject identifier (RFC 9493 §3), and SSF 1.0's complex subject (§3.2): whom or what a
/// security event is about.
///
/// The formats a Handover event names and a Handover receiver acts on are read into their cases;
/// any other format is kept as `.other` with its format name, so that a SET about one is
/// acknowledged and ignored rather than refused.
package indirect enum SubjectIdentifier: Codable, Sendable, Hashable {
    /// `{"format": "email", "email": …}` (RFC 9493 §3.2.2).
    case email(String)
    /// `{"format": "iss_sub", "iss": …, "sub": …}` (§3.2.5).
    case issuerSubject(issuer: String, subject: String)
    /// `{"format": "opaque", "id": …}` (§3.2.4).
    case opaque(String)
    /// `{"format": "aliases", "identifiers": […]}` (§3.2.1): one subject, several names.
    case aliases([SubjectIdentifier])
    /// `{"format": "complex", "user": …, "device": …, "session": …, "tenant": …}` (SSF §3.2).
    case complex(user: SubjectIdentifier?, device: SubjectIdentifier?, session: SubjectIdentifier?, tenant: SubjectIdentifier?)
    /// Any other format, by name (`phone_number`, `account`, `did`, `uri`, `ip-addresses`…).
    case other(format: String)

    private enum Key: String, CodingKey {
        case format, email, iss, sub, id, identifiers, user, device, session, tenant
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let format = try container.decode(String.self, forKey: .format)
        switch format {
        case "email": self = .email(try container.decode(String.self, forKey: .email))
        case "iss_sub": self = .issuerSubject(issuer: try container.decode(String.self, forKey: .iss), subject: try container.decode(String.self, forKey: .sub))
        case "opaque": self = .opaque(try container.decode(String.self, forKey: .id))
        case "aliases": self = .aliases(try container.decode([SubjectIdentifier].self, forKey: .identifiers))
        case "complex":
            self = .complex(user: try container.decodeIfPresent(SubjectIdentifier.self, forKey: .user),
                            device: try container.decodeIfPresent(SubjectIdentifier.self, forKey: .device),
                            session: try container.decodeIfPresent(SubjectIdentifier.self, forKey: .session),
                            tenant: try container.decodeIfPresent(SubjectIdentifier.self, forKey: .tenant))
        default: self = .other(format: String(format.prefix(100)))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .email(let email):
            try container.encode("email", forKey: .format)
            try container.encode(email, forKey: .email)
        case .issuerSubject(let issuer, let subject):
            try container.encode("iss_sub", forKey: .format)
            try container.encode(issuer, forKey: .iss)
            try container.encode(subject, forKey: .sub)
        case .opaque(let id):
            try container.encode("opaque", forKey: .format)
            try container.encode(id, forKey: .id)
        case .aliases(let identifiers):
            try container.encode("aliases", forKey: .format)
            try container.encode(identifiers, forKey: .identifiers)
        case .complex(let user, let device, let session, let tenant):
            try container.encode("complex", forKey: .format)
            try container.encodeIfPresent(user, forKey: .user)
            try container.encodeIfPresent(device, forKey: .device)
            try container.encodeIfPresent(session, forKey: .session)
            try container.encodeIfPresent(tenant, forKey: .tenant)
        case .other(let format):
            try container.encode(format, forKey: .format)
        }
    }

    /// The simple identifiers this one names, itself included: an alias's names and a complex
    /// subject's members, each in turn.
    package var simpleIdentifiers: [SubjectIdentifier] {
        switch self {
        case .aliases(let identifiers): identifiers.flatMap(\.simpleIdentifiers)
        case .complex(let user, let device, let session, let tenant): [user, device, session, tenant].compactMap { $0 }.flatMap(\.simpleIdentifiers)
        default: [self]
        }
    }

    /// The person a subject names: the `user` of a complex subject, or the subject itself.
    package var person: SubjectIdentifier? {
        switch self {
        case .complex(let user, _, _, _): user
        case .other, .opaque: nil
        default: self
        }
    }

    /// The subject as sorted-key JSON: how a stream stores the subjects a receiver removed.
    package var canonicalJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
