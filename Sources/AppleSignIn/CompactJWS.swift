import Foundation

/// A JWT in compact serialization (`header.payload.signature`), split and decoded but not yet
/// verified. Parsing touches no key.
struct CompactJWS {
    /// The fields of the protected header this module reads.
    struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    let header: Header
    /// The decoded payload bytes (JSON).
    let payload: Data
    /// The bytes the signature covers: the ASCII of `header.payload` as received.
    let signingInput: Data
    let signature: Data

    init(_ token: String) throws(AppleJWTError) {
        let bytes = Array(token.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformed("expected 3 dot-separated parts, found \(parts.count)")
        }
        guard let headerBytes = Base64URL.decode(utf8: parts[0]) else { throw .malformed("header is not base64url") }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerBytes) else {
            throw .malformed("header is not a JSON object")
        }
        guard let payload = Base64URL.decode(utf8: parts[1]) else { throw .malformed("payload is not base64url") }
        guard let signature = Base64URL.decode(utf8: parts[2]) else { throw .malformed("signature is not base64url") }
        self.header = header
        self.payload = payload
        self.signingInput = Data(bytes[parts[0].startIndex..<parts[1].endIndex])
        self.signature = signature
    }
}
