import Foundation

/// `jti` values: 128 random bits as 32 lowercase hex characters, unique per token.
public enum TokenID {
    /// A new random token id.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let value = generator.next() as UInt64
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }
}
