import Foundation
import Testing

/// `handover simulate oob` against `handover serve --developer-mode --apns-loopback`, as separate
/// processes: every dispatcher and every decision ends in the status the help promises.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SimulateOutOfBandCommandTests {
    static var hasZbarimg: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/zbarimg") }
    }

    @Test func everyDispatcherAndDecisionEndsInItsStatus() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-oob-cli-\(UUID().uuidString)")
        let server = try ServerProcess.start(dataDirectory: directory, arguments: ["--developer-mode", "--apns-loopback"])
        defer {
            _ = server.terminate()
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
            let result = try HandoverBinary.run(["simulate", "oob", "--server", server.baseURL.absoluteString, "--admin-key", key,
                                                 "--dispatcher", dispatcher, "--decision", decision, "--type", type,
                                                 "--keys-file", keys, "--json"])
            #expect(result.status == 0, "\(dispatcher) \(decision): \(result.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(report?["finalStatus"] as? String == status, "\(dispatcher) \(decision): \(result.stdout) \(result.stderr)")
            #expect(report?["dispatcher"] as? String == dispatcher)
        }
        // The phone enrolled once (its keys are kept in the file) and says so on later runs.
        let again = try HandoverBinary.run(["simulate", "oob", "--server", server.baseURL.absoluteString, "--admin-key", key,
                                            "--dispatcher", "link", "--keys-file", keys])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("already enrolled"))
        #expect(again.stdout.contains("final status: succeeded"))
    }

    @Test func badArgumentsAreNamedWithWhatIsAccepted() throws {
        let wrongDispatcher = try HandoverBinary.run(["simulate", "oob", "--server", "http://127.0.0.1:9", "--admin-key", "k", "--dispatcher", "fax"])
        #expect(wrongDispatcher.status != 0)
        #expect(wrongDispatcher.stderr.contains("--dispatcher: 'fax' is not a dispatcher. Accepted: push, qr, link, x-callback-link."))
        let wrongNumber = try HandoverBinary.run(["simulate", "oob", "--server", "http://127.0.0.1:9", "--admin-key", "k", "--dispatcher", "link",
                                                  "--decision", "wrong-number", "--type", "deregistration"])
        #expect(wrongNumber.stderr.contains("needs --type authentication"))
        let help = try HandoverBinary.run(["simulate", "oob", "--help"])
        #expect(help.stdout.contains("wrong-number  picks another number"))
    }

    @Test func apnsLoopbackNeedsDeveloperMode() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-oob-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try HandoverBinary.run(["serve", "--port", "0", "--data-dir", directory.path, "--apns-loopback"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--apns-loopback: only with --developer-mode"))
    }
}
