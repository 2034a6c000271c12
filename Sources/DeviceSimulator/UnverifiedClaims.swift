import Foundation
import LinkCallbacks

/// The claims of a JWT read without checking its signature: the simulator and the demo only show
/// them (which session a token names); a backend verifies them with the JWKS.
public enum UnverifiedClaims {
    /// The payload of `token` decoded as `Claims`, or nil when it is not a JWT or not such a payload.
    public static func decode<Claims: Decodable>(_ type: Claims.Type, from token: String) -> Claims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = try? Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    /// The payload of `token` as ``Session`` claims, or nil when it is not a JWT.
    public static func of(_ token: String) -> Session? {
        decode(Session.self, from: token)
    }

    /// The claims the simulator and the demo show: which session and user a token names, for
    /// whom, and (a logout token) which events it carries.
    public struct Session: Decodable, Sendable, Equatable {
        /// `sid`: the session.
        public var sessionID: String?
        /// `sub`: the user.
        public var subject: String?
        /// `aud`, when it is one string.
        public var audience: String?
        /// The keys of `events` (a logout token names `http://schemas.openid.net/event/backchannel-logout`).
        public var events: [String]

        private enum CodingKeys: String, CodingKey {
            case sessionID = "sid", subject = "sub", audience = "aud", events
        }

        /// Any JSON object: an event's members are not read.
        private struct Member: Decodable {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sessionID = try? container.decodeIfPresent(String.self, forKey: .sessionID)
            subject = try? container.decodeIfPresent(String.self, forKey: .subject)
            audience = try? container.decodeIfPresent(String.self, forKey: .audience)
            events = ((try? container.decodeIfPresent([String: Member].self, forKey: .events)) ?? [:]).keys.sorted()
        }
    }
}
