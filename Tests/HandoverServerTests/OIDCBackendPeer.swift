import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// The team backend of `Tests/Peers/oidc_backend.py`, written with joserfc: it verifies tokens
/// and takes Back-Channel Logout tokens the way a resource server that never saw our code would.
/// Tests that need it skip, saying why, when python3 with joserfc is missing (`.ci/run` installs it).
enum OIDCBackendPeer {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers/oidc_backend.py")

    /// Whether python3 can import joserfc; prints the reason to skip when not.
    static func isAvailable() -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import joserfc"]
        probe.standardError = FileHandle.nullDevice
        probe.standardOutput = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        if probe.terminationStatus != 0 {
            print("SKIP the joserfc backend: python3 with the joserfc package is not installed (bash .ci/run installs it)")
        }
        return probe.terminationStatus == 0
    }

    /// Verifies `token` as a backend would; returns (accepted, output).
    static func verify(issuer: String, audience: String, kind: String, token: String, now: Date) throws -> (Bool, String) {
        try run(["verify", issuer, audience, kind, token, String(Int(now.timeIntervalSince1970))])
    }

    /// Introspects, revokes and introspects `token` again as the backend `clientID`; returns (as expected, output).
    static func revokeCheck(issuer: String, clientID: String, secret: String, token: String) throws -> (Bool, String) {
        try run(["revoke-check", issuer, clientID, secret, token])
    }

    private static func run(_ arguments: [String]) throws -> (Bool, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus == 0, text)
    }

    /// A running backend that takes logout tokens for `clientID`.
    final class Server: @unchecked Sendable {
        let process: Process
        let port: Int
        var url: String { "http://127.0.0.1:\(port)" }

        init(issuer: String, clientID: String, now: Date) async throws {
            let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-backend-\(UUID().uuidString).port")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", OIDCBackendPeer.script.path, "serve", issuer, clientID, portFile.path, String(Int(now.timeIntervalSince1970))]
            try process.run()
            self.process = process
            var port: Int?
            for _ in 0..<200 {
                if let text = try? String(contentsOf: portFile, encoding: .utf8), let value = Int(text) { port = value; break }
                try await Task.sleep(for: .milliseconds(25))
            }
            try? FileManager.default.removeItem(at: portFile)
            guard let port else {
                kill(process.processIdentifier, SIGKILL)
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the joserfc backend did not start"])
            }
            self.port = port
        }

        /// Kills it: SIGKILL, since a child of the test runner may inherit SIGTERM ignored.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A port nothing listens on now, for a server that must know its own public URL before it starts.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
