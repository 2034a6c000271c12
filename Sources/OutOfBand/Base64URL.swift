import Foundation
import LinkCallbacks

/// Base64url without padding (RFC 4648 §5), strict, as `LinkCallbacks` implements it: padding,
/// `+`, `/`, white space, impossible lengths and stray bits in the last character are refused.
/// This adapter only reports a bad value as an ``OutOfBandError`` naming the field.
enum Base64URL {
    static func encode(_ data: some Sequence<UInt8>) -> String {
        LinkCallbacks.Base64URL.encode(data)
    }

    /// Decodes unpadded base64url text, throwing an ``OutOfBandError`` that names `field`.
    static func decode(_ text: some StringProtocol, field: String) throws(OutOfBandError) -> Data {
        do {
            return try LinkCallbacks.Base64URL.decode(String(text), parameter: field)
        } catch {
            throw OutOfBandError(field: field, problem: .invalidBase64URL, detail: error.detail, accepted: error.accepted)
        }
    }
}
