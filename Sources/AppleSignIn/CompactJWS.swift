import Foundation

/// A JWT in compact serialization (`header.payload.signature`), split and decoded but not yet
/// verified. Parsing touches no key.
struct CompactJWS {
    /// The fields of the protected header this module reads.
    /// Header segments already decoded: Apple signs with a handful of keys, so the same few
    /// headers come back on every token, and decoding their JSON each time is wasted work.
    static let knownHeaders = HeaderCache()

    final class HeaderCache: @unchecked Sendable {
        private var headers: [ArraySlice<UInt8>: Header] = [:]
        private let lock = NSLock()

        func header(for segment: ArraySlice<UInt8>) -> Header? {
            lock.lock()
            defer { lock.unlock() }
            return headers[segment]
        }

        func remember(_ segment: ArraySlice<UInt8>, _ header: Header) {
            guard segment.count <= 512 else { return }
            lock.lock()
            defer { lock.unlock() }
            if headers.count >= 64 { headers.removeAll() }
            headers[ArraySlice(Array(segment))] = header
        }
    }

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
        let header: Header
        if let known = Self.knownHeaders.header(for: parts[0]) {
            header = known
        } else {
            guard let headerBytes = Base64URL.decode(utf8: parts[0]) else { throw .malformed("header is not base64url") }
            guard let decoded = try? JSONDecoder().decode(Header.self, from: headerBytes) else {
                throw .malformed("header is not a JSON object")
            }
            header = decoded
            Self.knownHeaders.remember(parts[0], decoded)
        }
        guard let payload = Base64URL.decode(utf8: parts[1]) else { throw .malformed("payload is not base64url") }
        guard let signature = Base64URL.decode(utf8: parts[2]) else { throw .malformed("signature is not base64url") }
        self.header = header
        self.payload = payload
        self.signingInput = Data(bytes[parts[0].startIndex..<parts[1].endIndex])
        self.signature = signature
    }
}
