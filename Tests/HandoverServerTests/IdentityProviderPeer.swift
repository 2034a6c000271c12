import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TestPeers
import Testing

/// The organisation's identity provider in the tests: oidc-provider-mock (PyPI, on Authlib),
/// started from `Tests/Peers/identity_provider.py`, with its test routes for forged tokens and
/// back-channel logout. Tests that need it skip, saying why, when it is not installed
/// (`.ci/run` installs it).
struct IdentityProviderPeer {
    let peer: PythonPeer
    var issuer: String { "http://127.0.0.1:\(peer.port)" }

    static func isAvailable() async -> Bool { await PythonPeer.canImport("oidc_provider_mock", skipping: "the identity provider (oidc-provider-mock)") }

    static func start() async throws -> IdentityProviderPeer {
        IdentityProviderPeer(peer: try await PythonPeer.start("identity_provider.py"))
    }

    func stop() { peer.stop() }

    private func send(_ method: HTTPMethod, _ path: String, json: Any? = nil, form: String? = nil,
                      client: HTTPClient) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : issuer + path)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: json)))
        } else if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), response.headers, Data(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// Sets the claims the provider gives person `subject` (`PUT /users/{sub}`).
    func setPerson(_ subject: String, _ claims: [String: Any], client: HTTPClient) async throws {
        let reply = try await send(.PUT, "/users/\(subject)", json: claims, client: client)
        #expect(reply.status == 204)
    }

    /// A compact JWS of `claims` signed by the provider's key (or another key with its kid).
    func sign(_ claims: [String: Any], header: [String: Any] = [:], otherKey: Bool = false, client: HTTPClient) async throws -> String {
        let reply = try await send(.POST, "/test/sign", json: ["claims": claims, "header": header, "key": otherKey ? "other" : "provider"],
                                   client: client)
        let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        return try #require(object?["token"] as? String)
    }

    /// Makes the token endpoint's next ID token a forgery: the real one's claims changed by
    /// `claims` (NSNull removes one), signed with `header` and the provider's key (or another).
    func forgeNextIDToken(_ claims: [String: Any] = [:], header: [String: Any] = [:], otherKey: Bool = false,
                          client: HTTPClient) async throws {
        let reply = try await send(.POST, "/test/forge-next", json: ["claims": claims, "header": header, "key": otherKey ? "other" : "provider"],
                                   client: client)
        #expect(reply.status == 204)
    }

    /// Has the provider send a logout token with `claims` to `uri`; returns the relying party's answer.
    func backChannelLogout(to uri: String, _ claims: [String: Any], typ: String = "logout+jwt",
                           client: HTTPClient) async throws -> (status: Int, body: String) {
        let reply = try await send(.POST, "/test/backchannel", json: ["uri": uri, "claims": claims, "typ": typ], client: client)
        let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        return (object?["status"] as? Int ?? 0, object?["body"] as? String ?? "")
    }

    /// Plays the person at the provider: given the authorization URL the dashboard redirected to,
    /// submits the mock's sign-in form as `subject` and returns where the provider redirects
    /// (the dashboard's callback with `code` and `state`).
    func authorize(_ authorizationURL: String, as subject: String, client: HTTPClient) async throws -> String {
        let reply = try await send(.POST, authorizationURL, form: "sub=\(subject)", client: client)
        #expect(reply.status == 302, "\(String(decoding: reply.body, as: UTF8.self).prefix(400))")
        return try #require(reply.headers.first(name: "Location"))
    }
}
