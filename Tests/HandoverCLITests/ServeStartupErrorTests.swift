import Foundation
import Testing

/// Every start-up mistake an administrator can make ends `handover serve` with one line that
/// names the setting, says what was wrong and what is accepted: no backtrace, no crash, no
/// Foundation error domain, and no server left running.
@Suite(.timeLimit(.minutes(5))) struct ServeStartupErrorTests {
    /// A bad configuration: the arguments and environment that make it, and the setting the
    /// one-line error must name.
    struct BadConfiguration: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String] = []
        var environment: [String: String] = [:]
        var files: [String: String] = [:]
        var setting: String
        var mentions: String
        var testDescription: String { name }
    }

    static let apnsFlags = ["--apns-key-id", "ABC123DEFG", "--apns-team-id", "ABCDE12345", "--apns-topic", "com.example.app"]
    static let appleFlags = ["--apple-client-ids", "com.example.app", "--apple-team-id", "ABCDE12345", "--apple-key-id", "ABC123DEFG"]

    static let table: [BadConfiguration] = [
        BadConfiguration(name: "a host that does not resolve", arguments: ["--host", "no-such-host.invalid"],
                         setting: "--host", mentions: "no-such-host.invalid"),
        BadConfiguration(name: "an address this machine does not have", arguments: ["--host", "192.0.2.1"],
                         setting: "--host", mentions: "192.0.2.1"),
        BadConfiguration(name: "a damaged token-encryption.key", files: ["DATA/token-encryption.key": "not a key at all\n"],
                         setting: "--data-dir", mentions: "token-encryption.key"),
        BadConfiguration(name: "an encryption key that is not base64", environment: ["HANDOVER_TOKEN_ENCRYPTION_KEY": "garbage!!"],
                         setting: "HANDOVER_TOKEN_ENCRYPTION_KEY", mentions: "32"),
        BadConfiguration(name: "an encryption key that is too short", environment: ["HANDOVER_TOKEN_ENCRYPTION_KEY": "c2hvcnQ="],
                         setting: "HANDOVER_TOKEN_ENCRYPTION_KEY", mentions: "32"),
        BadConfiguration(name: "an APNs key file of garbage, by flag", arguments: ["--apns-private-key-file", "FILES/apns.p8"] + apnsFlags,
                         files: ["FILES/apns.p8": "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n"],
                         setting: "--apns-private-key-file", mentions: "P-256"),
        BadConfiguration(name: "an RSA APNs key, by environment", arguments: apnsFlags,
                         environment: ["HANDOVER_APNS_PRIVATE_KEY_FILE": "FILES/rsa.pem"], files: ["FILES/rsa.pem": "RSA"],
                         setting: "--apns-private-key-file", mentions: "P-256"),
        BadConfiguration(name: "an invalid Apple private key", arguments: appleFlags + ["--apple-private-key-file", "FILES/apple.p8"],
                         files: ["FILES/apple.p8": "hello"], setting: "--apple-private-key-file", mentions: ".p8"),
        BadConfiguration(name: "an RSA Apple private key", arguments: appleFlags + ["--apple-private-key-file", "FILES/rsa.pem"],
                         files: ["FILES/rsa.pem": "RSA"], setting: "--apple-private-key-file", mentions: ".p8"),
        BadConfiguration(name: "a PostgreSQL URL with no host", arguments: ["--database", "postgres://"],
                         setting: "--database", mentions: "postgres://"),
        BadConfiguration(name: "a data directory under a file", arguments: ["--data-dir", "FILES/plain-file/data"],
                         files: ["FILES/plain-file": "x"], setting: "--data-dir", mentions: "is a file"),
        BadConfiguration(name: "a missing SMTP CA file",
                         environment: ["HANDOVER_SMTP_HOST": "127.0.0.1", "HANDOVER_SMTP_FROM": "no-reply@example.com",
                                       "HANDOVER_SMTP_CA_FILE": "FILES/missing-ca.pem"],
                         setting: "HANDOVER_SMTP_CA_FILE", mentions: "does not exist"),
    ]

    @Test(arguments: table)
    func aBadConfigurationExitsWithOneReadableLine(_ bad: BadConfiguration) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        func place(_ text: String) -> String {
            text.replacingOccurrences(of: "DATA", with: data.path).replacingOccurrences(of: "FILES", with: folder.path)
        }
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        for (path, contents) in bad.files {
            let text = contents == "RSA" ? try await Self.rsaKeyPEM() : contents
            try Data(text.utf8).write(to: URL(fileURLWithPath: place(path)))
        }
        var arguments = ["serve", "--port", "0"]
        if !bad.arguments.contains("--data-dir") { arguments += ["--data-dir", data.path] }
        arguments += bad.arguments.map(place)
        let result = try await HandoverBinary.run(arguments, environment: bad.environment.mapValues(place), timeout: 60)
        Self.expectOneReadableLine(result, setting: bad.setting, mentions: bad.mentions)
    }

    @Test func aPortInUseIsNamed() async throws {
        let listener = try TakenPort()
        defer { listener.close() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("handover-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let result = try await HandoverBinary.run(["serve", "--port", "\(listener.port)", "--data-dir", data.path], timeout: 60)
        Self.expectOneReadableLine(result, setting: "--port", mentions: "already in use")
    }

    /// Issue 38: the listen address is checked before anything is created. A port in use on a
    /// new folder: at most three lines on stderr (no migration chatter), a non-zero exit, and
    /// no folder, database or key left behind.
    @Test func aPortInUseIsFoundBeforeAnythingIsCreated() async throws {
        let listener = try TakenPort()
        defer { listener.close() }
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("handover-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let data = parent.appendingPathComponent("data")
        let result = try await HandoverBinary.run(["serve", "--port", "\(listener.port)", "--data-dir", data.path], timeout: 60)
        let lines = result.stderr.split(whereSeparator: \.isNewline).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(result.status != 0 && !result.timedOut, "\(result.stdout)\(result.stderr)")
        #expect(lines.count <= 3, "\(lines.count) lines on stderr: \(result.stderr.prefix(800))")
        #expect(result.stderr.contains("--port") && result.stderr.contains("already in use"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: parent.path), "created \(parent.path)")
    }

    @Test func aSecondServeOnTheSameDataDirectoryIsRefused() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("handover-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let first = try await ServerProcess.start(dataDirectory: data)
        defer { first.terminateInBackground() }
        let result = try await HandoverBinary.run(["serve", "--port", "0", "--data-dir", data.path], timeout: 60)
        Self.expectOneReadableLine(result, setting: "--data-dir", mentions: "another handover serve")
    }

    @Test func aDataDirectoryAndItsDatabaseAreTheOwnersOnly() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("handover-startup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try await ServerProcess.start(dataDirectory: data)
        _ = await server.terminate()
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
        }
        #expect(try mode(data.path) == 0o700)
        #expect(try mode(data.appendingPathComponent("handover.sqlite").path) == 0o600)
        #expect(try mode(data.appendingPathComponent("token-encryption.key").path) == 0o600)
    }

    /// Two instances on one PostgreSQL database with their own data directories (and so their
    /// own generated keys): the second says that every instance needs the same key.
    @Test func aSecondPostgreSQLInstanceWithAnotherKeySaysWhichKeyToShare() async throws {
        guard let base = ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"], !base.isEmpty,
              let slash = base.lastIndex(of: "/") else {
            print("SKIP aSecondPostgreSQLInstanceWithAnotherKeySaysWhichKeyToShare: HANDOVER_TEST_POSTGRES_URL is not set (bash .ci/run sets it)")
            return
        }
        let name = "handover_cli_\(UUID().uuidString.prefix(8).lowercased())"
        try #require(try await ToolProcess.run(["psql", base, "-q", "-c", "CREATE DATABASE \(name)"]).status == 0)
        let url = String(base[...slash]) + name
        let first = FileManager.default.temporaryDirectory.appendingPathComponent("handover-pg-a-\(UUID().uuidString)")
        let second = FileManager.default.temporaryDirectory.appendingPathComponent("handover-pg-b-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: first); try? FileManager.default.removeItem(at: second) }
        let server = try await ServerProcess.start(dataDirectory: first, arguments: ["--database", url])
        defer { server.terminateInBackground() }
        let result = try await HandoverBinary.run(["serve", "--port", "0", "--data-dir", second.path, "--database", url], timeout: 60)
        Self.expectOneReadableLine(result, setting: "HANDOVER_TOKEN_ENCRYPTION_KEY", mentions: "every instance")
    }

    // MARK: Helpers

    static func expectOneReadableLine(_ result: HandoverBinary.Result, setting: String, mentions: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        // Informational log records (the migrations of a first start) are not part of the error.
        let lines = result.stderr.split(whereSeparator: \.isNewline).filter { line in
            !line.trimmingCharacters(in: .whitespaces).isEmpty
                && line.range(of: #"^\d{4}-\d\d-\d\dT\S+ (trace|debug|info|notice) "#, options: .regularExpression) == nil
        }
        #expect(result.status != 0 && !result.timedOut, "exit \(result.status): \(result.stdout) \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.status != 4 && result.status != 132 && result.status != 134 && result.status != 139,
                "a crash, not an error: \(result.stderr.prefix(400))", sourceLocation: sourceLocation)
        #expect(lines.count == 1, "\(lines.count) lines on stderr: \(result.stderr.prefix(800))", sourceLocation: sourceLocation)
        let line = String(lines.first ?? "")
        #expect(line.contains(setting), "does not name \(setting): \(line)", sourceLocation: sourceLocation)
        #expect(line.contains("Accepted:"), "does not say what is accepted: \(line)", sourceLocation: sourceLocation)
        #expect(line.contains(mentions), "does not mention '\(mentions)': \(line)", sourceLocation: sourceLocation)
        #expect(!line.contains("Domain="), "a Foundation error domain: \(line)", sourceLocation: sourceLocation)
    }

    /// A 2048-bit RSA key in PEM, made by openssl (keys of the wrong kind must be refused).
    static func rsaKeyPEM() async throws -> String {
        String(decoding: try await ToolProcess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]).output, as: UTF8.self)
    }
}

/// A loopback port held open by this test, so that the server finds it taken.
struct TakenPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 }
        }
        guard bound else { throw ServerProcessError(description: "could not hold a loopback port") }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
