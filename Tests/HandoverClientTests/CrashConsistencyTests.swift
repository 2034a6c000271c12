import Foundation
import Testing
import TestPeers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a receiver in a child process, SIGKILLs it at random moments, restarts it, and checks
/// that every acknowledged link has its callback opened (at least once).
///
/// The kill moment is random: mostly 0–3 ms after the first acknowledgement, sometimes 0–6 ms
/// after the links are written to a receiver that has finished launching. This is the one test
/// that waits in real time, because a kill must land in a real process.
@Suite(.timeLimit(.minutes(5))) struct CrashConsistencyTests {
    static var harness: URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            root.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("ReceiverCrashHarness") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }

    struct Counts: CustomStringConvertible {
        var iterations = 0, sent = 0, accepted = 0, completed = 0, lost = 0, duplicates = 0, unacknowledgedCompleted = 0

        var description: String {
            "crash test: \(iterations) iterations, \(sent) links sent, \(accepted) accepted, \(completed) completed, " +
                "\(lost) lost, \(duplicates) duplicate callbacks, \(unacknowledgedCompleted) completed without an acknowledgement"
        }
    }

    /// What one kill-and-restart left: the links sent, those the killed receiver acknowledged, the
    /// callbacks opened, and how the restarted receiver ended.
    struct Trial: Sendable {
        var links: [String] = []
        var acknowledged: [String] = []
        var opened: [String] = []
        var finished = false
        var endedIdle = false
        var leftovers: [String] = []
    }

    @Test func everyAcknowledgedLinkSurvivesSIGKILLAtRandomPoints() async throws {
        var counts = Counts()
        for iteration in 0..<200 {
            // Each trial waits on its children and in real time: on a thread of its own, not on
            // one of Swift's two cooperative threads, which the tests beside it need.
            let trial = try await ChildProcess.onOwnThread { try Self.trial(iteration) }
            #expect(trial.finished, "the restarted receiver did not finish")
            #expect(trial.endedIdle)
            #expect(trial.leftovers.isEmpty, "commands left in the journal: \(trial.leftovers)")
            counts.sent += trial.links.count
            counts.iterations += 1
            counts.accepted += trial.acknowledged.count
            for (index, link) in trial.links.enumerated() {
                let callback = "https://launcher.example.com/ok?n=\(iteration)-\(index)"
                let times = trial.opened.filter { $0 == callback }.count
                if trial.acknowledged.contains(link) {
                    if times == 0 { counts.lost += 1 } else { counts.completed += 1 }
                } else if times > 0 {
                    counts.unacknowledgedCompleted += 1
                }
                counts.duplicates += max(0, times - 1)
            }
        }
        print(counts)
        #expect(counts.lost == 0)
        #expect(counts.completed == counts.accepted)
        #expect(counts.iterations >= 200)
    }

    /// Feeds five links to a receiver, kills it at a random moment, and lets a second one recover.
    static func trial(_ iteration: Int) throws -> Trial {
        var generator = SystemRandomNumberGenerator()
        var trial = Trial()
        let folder = temporaryFolder("crash\(iteration)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = folder.appendingPathComponent("journal").path
        let log = folder.appendingPathComponent("callbacks.log").path
        trial.links = (0..<5).map { index in
            "https://app.example.com/logout?ulc-success=https%3A%2F%2Flauncher.example.com%2Fok%3Fn%3D\(iteration)-\(index)" +
                "&ulc-error=https%3A%2F%2Flauncher.example.com%2Ffail%3Fn%3D\(iteration)-\(index)"
        }

        // First run: feed links, kill at a random moment.
        let first = try Child(arguments: [journal, log])
        first.waitForReady()
        first.write(trial.links.joined(separator: "\n") + "\n")
        // Three iterations in four wait for the first acknowledgement and then kill 0–3 ms
        // later, so the kill lands while the others are being journaled, run and answered
        // even on a slow machine; the fourth kills 0–6 ms after the write, acknowledged or not.
        if iteration % 4 != 0 {
            first.waitForFirstAcknowledgement()
            usleep(UInt32.random(in: 0...3_000, using: &generator))
        } else {
            usleep(UInt32.random(in: 0...6_000, using: &generator))
        }
        first.kill()
        trial.acknowledged = first.output.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("accepted ") ? String(line.dropFirst("accepted ".count)) : nil
        }

        // Second run: recovery only.
        let second = try Child(arguments: [journal, log])
        second.closeInput()
        trial.finished = second.wait(seconds: 20)
        trial.endedIdle = second.output.hasSuffix("idle\n")
        trial.opened = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        trial.leftovers = (try? FileManager.default.contentsOfDirectory(atPath: journal))?.filter { $0.hasSuffix(".command.json") } ?? []
        return trial
    }

    /// A child process with piped stdin and stdout.
    final class Child {
        let process: SpawnedProgram
        let input = ChildProcess.pipe()
        let out = ChildProcess.pipe()
        private var collected: String?

        init(arguments: [String]) throws {
            process = try SpawnedProgram.start(CrashConsistencyTests.harness, arguments, input: input, output: out)
        }

        private var early = Data()

        /// Reads stdout until the child says it has launched.
        func waitForReady() {
            while !String(decoding: early, as: UTF8.self).contains("ready\n") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                early.append(chunk)
            }
        }

        /// Reads stdout until the child has acknowledged a link (or closed its output).
        func waitForFirstAcknowledgement() {
            while !String(decoding: early, as: UTF8.self).contains("accepted ") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                early.append(chunk)
            }
        }

        func write(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

        func closeInput() { try? input.fileHandleForWriting.close() }

        func kill() {
            process.signal(SIGKILL)
            _ = process.wait()
            closeInput()
        }

        /// Waits for a normal exit; kills the child if it has not ended after `seconds`.
        func wait(seconds: Double) -> Bool {
            let process = process
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { process.signal(SIGKILL) }
            _ = process.wait()
            return !process.wasKilled
        }

        var output: String {
            if let collected { return collected }
            let text = String(decoding: early + out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            collected = text
            return text
        }
    }
}
