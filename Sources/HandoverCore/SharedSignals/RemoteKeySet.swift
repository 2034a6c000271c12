import AppleSignIn
import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1

/// Another party's signing keys, from its JWKS URL (RFC 7517): the organisation's identity
/// provider when it transmits security events to this server, or calls its Global Token
/// Revocation endpoint.
///
/// The set is kept for its `Cache-Control: max-age` (an hour without one). A token naming a key
/// id the set lacks makes it fetch the set again, at most once a minute, so forged key ids cannot
/// make this server hammer the provider.
package actor RemoteKeySet {
    package nonisolated let url: String
    private let http: HTTPClient
    private let now: @Sendable () -> Date
    private var keys: (collection: JWTKeyCollection, ids: Set<String>, expiresAt: Date)?
    private var lastUnknownKeyFetch: Date?

    /// Why a token's signature was not accepted.
    package enum Refusal: Error, Sendable, Equatable {
        /// Not three base64url parts with a JSON header.
        case malformed(String)
        /// An algorithm that is not asymmetric, or `none`.
        case algorithm(String)
        /// A key id the set does not hold, after fetching it again.
        case unknownKey(String)
        /// The signature does not verify with the key.
        case badSignature
        /// The set could not be fetched or read.
        case keysUnavailable(String)
    }

    package init(url: String, http: HTTPClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.http = http
        self.now = now
    }

    /// The algorithms accepted: asymmetric only.
    static let acceptedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]

    /// The JOSE header of a compact JWS (not yet verified).
    package struct Header: Decodable, Sendable {
        package var alg: String?
        package var kid: String?
        package var typ: String?
    }

    package static func header(_ token: String) throws(Refusal) -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("\(parts.count) parts, not 3") }
        var text = parts[0].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text), let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .malformed("its header is not base64url JSON")
        }
        return header
    }

    /// Verifies `token`'s signature with a key of the set and decodes its claims.
    package func verify<Claims: JWTPayload>(_ token: String, as type: Claims.Type) async throws(Refusal) -> Claims {
        let header = try Self.header(token)
        guard let alg = header.alg, Self.acceptedAlgorithms.contains(alg) else { throw .algorithm(header.alg ?? "missing") }
        var set = try await keySet(refetch: false)
        if let kid = header.kid, !set.ids.contains(kid) {
            let now = now()
            if lastUnknownKeyFetch.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
                lastUnknownKeyFetch = now
                set = try await keySet(refetch: true)
            }
            guard set.ids.contains(kid) else { throw .unknownKey(kid) }
        } else if header.kid == nil, set.ids.count != 1 {
            throw .malformed("its header has no key id (kid) and the set has \(set.ids.count) keys")
        }
        do {
            return try await set.collection.verify(token, as: Claims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed("\(error)")
        }
    }

    private func keySet(refetch: Bool) async throws(Refusal) -> (collection: JWTKeyCollection, ids: Set<String>) {
        if !refetch, let keys, now() < keys.expiresAt { return (keys.collection, keys.ids) }
        let (status, headers, body): (UInt, String?, Data)
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await http.execute(request, timeout: .seconds(10))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            (status, headers, body) = (response.status.code, response.headers.first(name: "Cache-Control"), Data(bytes.readableBytesView))
        } catch {
            throw .keysUnavailable("GET \(url) failed: \(error)")
        }
        guard status == 200 else { throw .keysUnavailable("GET \(url) answered HTTP \(status)") }
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        do {
            for key in try JSONDecoder().decode(JWKS.self, from: body).keys {
                guard let kid = key.keyIdentifier else { continue }
                if (try? await collection.add(jwk: key)) != nil { ids.insert(kid.string) }
            }
        } catch {
            throw .keysUnavailable("\(url) is not a JSON Web Key Set (\(error))")
        }
        guard !ids.isEmpty else { throw .keysUnavailable("\(url) holds no signing key with a key id") }
        keys = (collection, ids, now().addingTimeInterval(CacheControl.maxAge(headers) ?? 3600))
        return (collection, ids)
    }
}
