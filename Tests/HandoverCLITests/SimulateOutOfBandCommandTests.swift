import Foundation
import TestPeers
import Testing

/// `handover simulate oob` against `handover serve --developer-mode` pushing to `apns-loopback`, as
/// separate processes: every dispatcher and every decision ends in the status the help promises.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SimulateOutOfBandCommandTests {
    static var hasZbarimg: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/zbarimg") }
    }

    @Test func everyDispatcherAndDecisionEndsInItsStatus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-oob-cli-\(UUID().uuidString)")
        let apns = try APNsLoopbackProcess.start()
        let server = try await ServerProcess.start(dataDirectory: directory, environment: apns.environment, arguments: ["--developer-mode"])
        defer {
            server.terminateInBackground()
            apns.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let key = try #require(server.firstAdminKey)
        let keys = directory.appendingPathComponent("phone.keys").path
        var cases: [(dispatcher: String, decision: String, type: String, status: String)] = [
            ("link", "approve", "authentication", "succeeded"),
            ("x-callback-link", "deny", "transaction-confirmation", "cancelled"),
            ("push", "wrong-number", "authentication", "failed"),
            ("link", "late", "authentication", "expired"),
            ("push", "approve", "transaction-confirmation", "succeeded"),
        ]
        if Self.hasZbarimg {
            cases.append(("qr", "approve", "authentication", "succeeded"))
        } else {
            print("SKIP the qr case: zbarimg is not installed (apt-get install zbar-tools; bash .ci/run does)")
        }
        for (dispatcher, decision, type, status) in cases {
            let result = try await HandoverBinary.run(["simulate", "oob", "--server", server.baseURL.absoluteString, "--admin-key", key,
                                                 "--dispatcher", dispatcher, "--decision", decision, "--type", type,
                                                 "--keys-file", keys, "--json"], environment: apns.environment)
            #expect(result.status == 0, "\(dispatcher) \(decision): \(result.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(report?["finalStatus"] as? String == status, "\(dispatcher) \(decision): \(result.stdout) \(result.stderr)")
            #expect(report?["dispatcher"] as? String == dispatcher)
        }
        // The phone enrolled once (its keys are kept in the file) and says so on later runs.
        let again = try await HandoverBinary.run(["simulate", "oob", "--server", server.baseURL.absoluteString, "--admin-key", key,
                                            "--dispatcher", "link", "--keys-file", keys])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("already enrolled"))
        #expect(again.stdout.contains("final status: succeeded"))
    }

    @Test func badArgumentsAreNamedWithWhatIsAccepted() async throws {
        let wrongDispatcher = try await HandoverBinary.run(["simulate", "oob", "--server", "http://127.0.0.1:9", "--admin-key", "k", "--dispatcher", "fax"])
        #expect(wrongDispatcher.status != 0)
        #expect(wrongDispatcher.stderr.contains("--dispatcher: 'fax' is not a dispatcher. Accepted: push, qr, link, x-callback-link."))
        let wrongNumber = try await HandoverBinary.run(["simulate", "oob", "--server", "http://127.0.0.1:9", "--admin-key", "k", "--dispatcher", "link",
                                                  "--decision", "wrong-number", "--type", "deregistration"])
        #expect(wrongNumber.stderr.contains("needs --type authentication"))
        let help = try await HandoverBinary.run(["simulate", "oob", "--help"])
        #expect(help.stdout.contains("wrong-number  picks another number"))
    }

    @Test func anAPNsBaseURLNeedsDeveloperMode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-oob-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let apns = try APNsLoopbackProcess.start()
        defer { apns.stop() }
        let result = try await HandoverBinary.run(["serve", "--port", "0", "--data-dir", directory.path], environment: apns.environment, timeout: 60)
        #expect(result.status != 0)
        #expect(result.stderr.contains("--apns-base-url: only with --developer-mode"), "\(result.stderr)")
    }
}

/// `apns-loopback` as a child process: the environment it prints, until ``stop()``.
struct APNsLoopbackProcess {
    let process: Process
    let environment: [String: String]

    static func start() throws -> APNsLoopbackProcess {
        let process = Process()
        process.executableURL = HandoverBinary.url.deletingLastPathComponent().appendingPathComponent("apns-loopback")
        let out = ChildProcess.pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try ChildProcess.start(process)
        var text = ""
        while !text.contains("HANDOVER_PUSH_INBOX=") || !text.hasSuffix("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        var environment: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { environment[pair[0]] = pair[1] }
        }
        guard environment["HANDOVER_PUSH_INBOX"] != nil else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "apns-loopback printed no environment: \(text)"])
        }
        return APNsLoopbackProcess(process: process, environment: environment)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
