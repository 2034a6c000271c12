import Foundation
import TestPeers

/// Runs the built `handover` executable as a child process, the way a user or a script does.
struct HandoverBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Whether it was still running at the time limit (and was killed).
        var timedOut = false
    }

    /// The executable next to the test bundle in the build products folder.
    static var url: URL {
        var folder = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("handover")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        // `swift test` runs the xctest bundle from the products folder; fall back to the default debug build.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/handover")
    }

    /// Runs the executable to its end, or until `timeout` seconds have passed (then kills it and
    /// says so in ``Result/timedOut``). `environment` is added to this process's. It waits on a
    /// thread of its own (``ChildProcess``), not on one of Swift's few cooperative threads.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    timeout: TimeInterval = 300) async throws -> Result {
        let result = try await ChildProcess.run(url, arguments, environment: environment.isEmpty ? nil : environment,
                                                input: stdin.map { Data($0.utf8) }, timeout: timeout)
        return Result(status: result.status, stdout: result.outputText, stderr: result.errorText, timedOut: result.timedOut)
    }
}
