import Foundation
import TestPeers
import Testing

/// The tests' way to run a program (``ChildProcess``): output, errors, input, exit status and
/// the time limit, through `posix_spawn` where glibc has `addclosefrom`, else Foundation.
@Suite(.timeLimit(.minutes(5))) struct ChildProcessTests {
    @Test func outputErrorsInputAndStatusComeBackApart() async throws {
        let result = try await ChildProcess.run(["sh", "-c", "cat; echo to-errors >&2; exit 3"], input: Data("from input\n".utf8))
        #expect(result.status == 3)
        #expect(result.outputText == "from input\n")
        #expect(result.errorText == "to-errors\n")
        #expect(!result.timedOut)
        let merged = try await ChildProcess.run(["sh", "-c", "echo one; echo two >&2"], mergingErrors: true)
        #expect(merged.outputText.contains("one\n") && merged.outputText.contains("two\n") && merged.errors.isEmpty)
    }

    @Test func theEnvironmentIsAddedToThisProcesss() async throws {
        let result = try await ChildProcess.run(["sh", "-c", "echo \"$HANDOVER_CHILD_TEST:${PATH:+path}\""], environment: ["HANDOVER_CHILD_TEST": "set"])
        #expect(result.outputText == "set:path\n")
    }

    /// A program still running at its limit is killed (SIGKILL, 9) and says so; its output so far
    /// is kept.
    @Test func aProgramPastItsLimitIsKilledAndSaysSo() async throws {
        let result = try await ChildProcess.run(["sh", "-c", "echo started; exec sleep 60"], timeout: 0.5)
        #expect(result.timedOut && result.status == SIGKILL, "\(result.status)")
        #expect(result.outputText == "started\n")
    }

    /// The child holds no descriptor of this process beyond its three standard streams.
    @Test func theChildInheritsOnlyItsStandardStreams() async throws {
        let result = try await ChildProcess.run(["sh", "-c", "ls /proc/$$/fd"])
        let descriptors = result.outputText.split(separator: "\n").compactMap { Int($0) }
        // 0, 1 and 2, and the directory `ls` reads.
        #expect(descriptors.filter { $0 > 2 }.count <= 1, "\(descriptors)")
    }
}
