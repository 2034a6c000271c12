import Foundation
import TestPeers
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// The team backend of `Tests/Peers/oidc_backend.py`, written with joserfc: it verifies tokens
/// and takes Back-Channel Logout tokens the way a resource server that never saw our code would.
/// Tests that need it skip, saying why, when python3 with joserfc is missing (`.ci/run` installs it).
enum OIDCBackendPeer {
    /// Whether python3 can import joserfc; prints the reason to skip when not.
    static func isAvailable() async -> Bool { await PythonPeer.canImport("joserfc", skipping: "the joserfc backend") }

    /// Verifies `token` as a backend would; returns (accepted, output).
    static func verify(issuer: String, audience: String, kind: String, token: String, now: Date) async throws -> (Bool, String) {
        try await run(["verify", issuer, audience, kind, token, String(Int(now.timeIntervalSince1970))])
    }

    /// Introspects, revokes and introspects `token` again as the backend `clientID`; returns (as expected, output).
    static func revokeCheck(issuer: String, clientID: String, secret: String, token: String) async throws -> (Bool, String) {
        try await run(["revoke-check", issuer, clientID, secret, token])
    }

    private static func run(_ arguments: [String]) async throws -> (Bool, String) {
        let (status, output) = try await PythonPeer.run("oidc_backend.py", arguments)
        return (status == 0, output)
    }

    /// A running backend that takes logout tokens for `clientID`.
    final class Server: @unchecked Sendable {
        let process: SpawnedProgram
        let port: Int
        var url: String { "http://127.0.0.1:\(port)" }

        init(issuer: String, clientID: String, now: Date) async throws {
            let peer = try await PythonPeer.start("oidc_backend.py", ["serve", issuer, clientID, String(Int(now.timeIntervalSince1970))])
            self.process = peer.process
            self.port = peer.port
        }

        /// Kills it: SIGKILL, since a child of the test runner may inherit SIGTERM ignored.
        func stop() { PythonPeer(process: process, port: port).stop() }
    }

    /// A port nothing listens on now, for a server that must know its own public URL before it starts.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
