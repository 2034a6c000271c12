import Foundation
import Testing

/// `handover demo` and `handover tester run`, as a newcomer runs them.
@Suite(.timeLimit(.minutes(5))) struct DemoAndTesterCommandTests {
    @Test func theDemoPlaysAllSevenBehavioursAndExitsZero() throws {
        let started = Date()
        let result = try HandoverBinary.run(["demo"])
        print("handover demo: exit \(result.status) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s wall")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Every app ended as its behaviour predicts."))
        for (app, outcome) in [("sim-conformant", "succeeded"), ("sim-slow", "timed_out"), ("sim-silent", "timed_out"),
                               ("sim-flaky", "succeeded"), ("sim-failing", "failed"), ("sim-premature", "failed"),
                               ("sim-killed", "succeeded")] {
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("  \(app) ") }
            #expect(line?.contains(" \(outcome) ") == true, "\(app): \(line ?? "no line")")
        }
        #expect(result.stdout.contains("/dashboard"))
    }

    @Test func theTesterPassesAConformantSimulatedAppAndFailsAPrematureOne() throws {
        let good = try HandoverBinary.run(["tester", "run", "--simulate", "conformant"])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("Verdict: PASSED"))
        let bad = try HandoverBinary.run(["tester", "run", "--simulate", "premature", "--json"])
        #expect(bad.status == 1, "\(bad.stdout)\(bad.stderr)")
        #expect(bad.stdout.contains(#""status" : "failed""#))
        #expect(bad.stdout.contains("outside its allowlist"))
    }

    @Test func theTesterNamesAMissingActionAndAnUnknownBehaviour() throws {
        let missing = try HandoverBinary.run(["tester", "run"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--action"))
        let unknown = try HandoverBinary.run(["tester", "run", "--simulate", "sleepy"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Accepted: conformant, slow, silent"))
    }
}
