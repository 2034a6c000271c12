import Foundation
import JWTKit

/// The claims Handover reads from a token the organisation's provider signed: an ID token at
/// sign-in (OpenID Connect Core 1.0 §2), or a logout token (Back-Channel Logout 1.0 §2.4).
///
/// Every claim is optional here so that a token missing one is refused by
/// ``ProviderTokenVerifier`` with a sentence that names it, not by a decoding error. Claims whose
/// value is a string or an array of strings are also kept by name in ``stringValues``, so the
/// configured role claim (`groups`, `roles`, …) can be read whatever it is called.
package struct ProviderClaims: JWTPayload, Sendable {
    package var iss: String?
    package var sub: String?
    package var aud: [String]?
    package var exp: Date?
    package var iat: Date?
    package var nonce: String?
    package var azp: String?
    package var sid: String?
    package var jti: String?
    package var name: String?
    package var email: String?
    package var preferredUsername: String?
    /// The member names of `events` (a logout token has one: the back-channel logout event).
    package var events: [String]?
    /// Every claim whose value is a string (kept as one value) or an array of strings.
    package var stringValues: [String: [String]]

    package init(iss: String? = nil, sub: String? = nil, aud: [String]? = nil, exp: Date? = nil, iat: Date? = nil,
                 nonce: String? = nil, azp: String? = nil, sid: String? = nil, jti: String? = nil, name: String? = nil,
                 email: String? = nil, preferredUsername: String? = nil, events: [String]? = nil,
                 stringValues: [String: [String]] = [:]) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.nonce = nonce
        self.azp = azp
        self.sid = sid
        self.jti = jti
        self.name = name
        self.email = email
        self.preferredUsername = preferredUsername
        self.events = events
        self.stringValues = stringValues
    }

    /// The values of claim `name`: a string gives one value, an array of strings its members.
    package func values(of name: String) -> [String] { stringValues[name] ?? [] }

    /// The checks are ``ProviderTokenVerifier``'s: they need the issuer, client and clock.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func string(_ name: String) -> String? { try? container.decodeIfPresent(String.self, forKey: Key(name)) }
        func date(_ name: String) -> Date? {
            (try? container.decodeIfPresent(Double.self, forKey: Key(name))).map { Date(timeIntervalSince1970: $0) }
        }
        iss = string("iss")
        sub = string("sub")
        if let one = string("aud") {
            aud = [one]
        } else {
            aud = try? container.decodeIfPresent([String].self, forKey: Key("aud"))
        }
        exp = date("exp")
        iat = date("iat")
        nonce = string("nonce")
        azp = string("azp")
        sid = string("sid")
        jti = string("jti")
        name = string("name")
        email = string("email")
        preferredUsername = string("preferred_username")
        if container.contains(Key("events")), let events = try? container.nestedContainer(keyedBy: Key.self, forKey: Key("events")) {
            self.events = events.allKeys.map(\.stringValue)
        }
        var values: [String: [String]] = [:]
        for key in container.allKeys {
            if let one = try? container.decode(String.self, forKey: key) {
                values[key.stringValue] = [one]
            } else if let many = try? container.decode([String].self, forKey: key) {
                values[key.stringValue] = many
            }
        }
        stringValues = values
    }

    /// Writes the named claims, then every other kept string claim (tests sign tokens with it).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        let named: [(String, String?)] = [("iss", iss), ("sub", sub), ("nonce", nonce), ("azp", azp), ("sid", sid), ("jti", jti),
                                          ("name", name), ("email", email), ("preferred_username", preferredUsername)]
        for case let (name, value?) in named { try container.encode(value, forKey: Key(name)) }
        if let aud { try container.encode(aud, forKey: Key("aud")) }
        if let exp { try container.encode(Int(exp.timeIntervalSince1970), forKey: Key("exp")) }
        if let iat { try container.encode(Int(iat.timeIntervalSince1970), forKey: Key("iat")) }
        if let events {
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("events"))
            for event in events { try nested.encode([String: String](), forKey: Key(event)) }
        }
        let written = Set(named.map(\.0) + ["aud", "exp", "iat", "events"])
        for (name, values) in stringValues where !written.contains(name) {
            if values.count == 1 { try container.encode(values[0], forKey: Key(name)) } else { try container.encode(values, forKey: Key(name)) }
        }
    }
}
