import Foundation

/// A `handover serve` child process the bench starts and measures: its origin, the admin key it
/// printed on its first start, and its resident memory.
final class BenchServerProcess: @unchecked Sendable {
    let process: Process
    let origin: URL
    /// The admin key, printed only on a database's first start.
    let adminKey: String?
    private let output: Pipe

    /// Starts `handover serve --port 0` with `arguments` and waits for its "listening" line.
    init(arguments: [String], environment extra: [String: String] = [:], log: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.ownExecutable)
        process.arguments = ["serve", "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = environment["LOG_LEVEL"] ?? "warning"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        self.process = process
        self.output = output
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        var found: URL?
        while found == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Handover is listening on ") }),
               let word = line.split(separator: " ").dropFirst(4).first, let url = URL(string: String(word)),
               text.contains("Press Ctrl-C") {
                found = url
            }
        }
        guard let found else {
            process.terminate()
            throw BenchError("the server did not start (its log: \(log.path)); it printed:\n\(text)")
        }
        origin = found
        // A first start writes its admin key to the data directory (`FirstAdminKeyFile`), not to the output.
        let dataDirectory = arguments.firstIndex(of: "--data-dir").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        let written = dataDirectory.flatMap {
            try? String(contentsOfFile: URL(fileURLWithPath: $0).appendingPathComponent(FirstAdminKeyFile.name).path, encoding: .utf8)
        }
        adminKey = (written ?? text).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("hov_") }
        // Keep draining its standard output so that it never blocks on a full pipe.
        output.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
    }

    /// The process's resident set size in MB (Linux `/proc/<pid>/status`), or `nil` elsewhere.
    var residentMB: Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return nil }
        return kilobytes / 1024
    }

    /// Asks the server to stop (SIGTERM) and waits for it.
    func stop() {
        output.fileHandleForReading.readabilityHandler = nil
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// This executable, to start `handover serve` from the same build.
    static var ownExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A bench that cannot go on, with what to do.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
