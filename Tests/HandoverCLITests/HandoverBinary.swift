import Foundation

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
    /// says so in ``Result/timedOut``). `environment` is added to this process's.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    timeout: TimeInterval = 300) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let timer = DispatchWorkItem { if process.isRunning { process.interrupt(); kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let timedOut = timer.isCancelled == false && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        timer.cancel()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self), timedOut: timedOut)
    }
}
