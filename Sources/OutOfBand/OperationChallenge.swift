import Crypto
import Foundation

/// The server's fresh random challenge for one operation: 32 bytes, written as base64url.
///
/// The phone signs it back in its ``OperationAnswer``, so an answer cannot be replayed against
/// another operation or forged without the device's key.
public struct OperationChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The number of random bytes.
    public static let byteCount = 32

    /// The raw bytes.
    public let bytes: Data

    /// A new challenge from the system's secure random source.
    public static func random() -> OperationChallenge {
        var generator = SystemRandomNumberGenerator()
        return OperationChallenge(unchecked: Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    /// A challenge from exactly 32 bytes.
    public init(bytes: Data) throws(OutOfBandError) {
        guard bytes.count == Self.byteCount else {
            throw OutOfBandError(field: "challenge", problem: .invalidValue, detail: "the challenge has \(bytes.count) bytes",
                                 accepted: "exactly \(Self.byteCount) bytes")
        }
        self.bytes = bytes
    }

    /// Reads the base64url text of a challenge.
    public init(text: String, field: String = "challenge") throws(OutOfBandError) {
        let bytes = try Base64URL.decode(text, field: field)
        guard bytes.count == Self.byteCount else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "the challenge has \(bytes.count) bytes",
                                 accepted: "base64url of exactly \(Self.byteCount) bytes (43 characters)")
        }
        self.bytes = bytes
    }

    init(unchecked bytes: Data) { self.bytes = bytes }

    /// The base64url text (43 characters).
    public var text: String { Base64URL.encode(bytes) }

    public var description: String { text }

    /// Compares in constant time, so a server's check leaks nothing about how much matched.
    public func matches(_ other: OperationChallenge) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(bytes, other.bytes) { difference |= a ^ b }
        return difference == 0
    }
}
