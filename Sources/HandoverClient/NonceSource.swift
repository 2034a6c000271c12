import LinkCallbacks

/// Randomness for callback nonces, injected so tests are repeatable.
public struct NonceSource: Sendable {
    private let bytes: @Sendable (Int) -> [UInt8]

    /// Makes a source from a function that returns `count` random bytes.
    public init(bytes: @escaping @Sendable (Int) -> [UInt8]) {
        self.bytes = bytes
    }

    /// The system's cryptographic generator.
    public static let system = NonceSource { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A fresh 128-bit nonce, base64url (22 characters).
    public func next() -> String { Base64URL.encode(bytes(16)) }
}
