import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs use it.
enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; `nil` when the text holds characters outside the alphabet.
    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = String(text)
        guard !base64.contains(where: { $0 == "+" || $0 == "/" || $0 == "=" }) else { return nil }
        base64 = base64.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: base64)
    }
}
