import Foundation
import LinkCallbacks

/// The claims of a JWT read without checking its signature: the simulator and the demo only show
/// them (which session a token names); a backend verifies them with the JWKS.
public enum UnverifiedClaims {
    /// The payload of `token` as JSON, or nil when it is not a JWT.
    public static func of(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = try? Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
