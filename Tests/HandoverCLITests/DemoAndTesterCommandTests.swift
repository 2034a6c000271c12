import Foundation
import Testing

/// `handover demo` and `handover tester run`, as a newcomer runs them.
@Suite(.timeLimit(.minutes(5))) struct DemoAndTesterCommandTests {
    @Test func theDemoPlaysEveryBehaviourAndMethodAndExitsZero() async throws {
        let started = Date()
        let result = try await HandoverBinary.run(["demo"])
        print("handover demo: exit \(result.status) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s wall")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Every app and backend ended as predicted."))
        // Issue 66: the failed run is said to be the predicted one, and the proof is shown.
        #expect(result.stdout.contains("The run failed as predicted too"), "\(result.stdout)")
        #expect(result.stdout.contains("Receipt: signed by the server (ES256), verified against /oauth/jwks") && result.stdout.contains("9 apps' outcomes"))
        #expect(result.stdout.contains("Audit log: ") && result.stdout.contains("entries under a signed checkpoint"))
        for (app, outcome, backend) in [("sim-conformant", "succeeded", "delivered after 1 attempt (HTTP 200)"),
                                        ("sim-slow", "timed_out", "-"), ("sim-silent", "timed_out", "-"),
                                        ("sim-flaky", "succeeded", "failed after 4 attempts (connection refused)"),
                                        ("sim-failing", "failed", "-"), ("sim-premature", "failed", "-"),
                                        ("sim-killed", "succeeded", "-"),
                                        ("sim-pager", "succeeded", "-"),
                                        ("sim-rota", "succeeded", "delivered after 1 attempt (HTTP 200)")] {
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("  \(app) ") }
            #expect(line?.contains(" \(outcome) ") == true, "\(app): \(line ?? "no line")")
            #expect(line?.hasSuffix(" \(backend)") == true, "\(app)'s backend: \(line ?? "no line")")
        }
        // A mixed fleet: each app's method is named; the x-callback app cost one prompt.
        let line = { (app: String) in result.stdout.split(separator: "\n").first { $0.hasPrefix("  \(app) ") }.map(String.init) ?? "" }
        #expect(line("sim-pager").contains(" x-callback ") && line("sim-rota").contains(" backend-only ") && line("sim-slow").contains(" ULC "))
        #expect(result.stdout.contains("iOS asked 1 time before opening a custom scheme"))
        // The down backend was retried, and shown failing, with its reason, before it was given
        // up. Which attempt the demo's reads catch between a failure and the next try depends on
        // the machine's speed; a first attempt on its way is not failing (it has no reason yet).
        let backendLines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  backend of sim-flaky ") }
        #expect(backendLines.contains { $0.contains(" failing after ") && $0.hasSuffix(" (connection refused)") }, "\(result.stdout)")
        #expect(backendLines.allSatisfy { !$0.contains(" failing ") || $0.hasSuffix(" (connection refused)") }, "\(result.stdout)")
        #expect(result.stdout.contains("sim-conformant's backend received one logout token: aud com.example.sim-conformant"))
        // Before: it printed the dashboard's address of a server that had already stopped.
        #expect(!result.stdout.contains("/dashboard") && !result.stdout.contains("Admin key:") && result.stdout.contains("--keep-running"),
                "\(result.stdout)")
    }

    @Test func theTesterPassesAConformantSimulatedAppAndFailsAPrematureOne() async throws {
        let good = try await HandoverBinary.run(["tester", "run", "--simulate", "conformant"])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("Verdict: PASSED"))
        let bad = try await HandoverBinary.run(["tester", "run", "--simulate", "premature", "--json"])
        #expect(bad.status == 1, "\(bad.stdout)\(bad.stderr)")
        #expect(bad.stdout.contains(#""status" : "failed""#))
        #expect(bad.stdout.contains("outside its allowlist"))
    }

    @Test func theTesterNamesAMissingActionAndAnUnknownBehaviour() async throws {
        let missing = try await HandoverBinary.run(["tester", "run"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--action"))
        let unknown = try await HandoverBinary.run(["tester", "run", "--simulate", "sleepy"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Accepted: conformant, slow, silent"))
    }
}
