import Foundation
import TestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `handover serve` in a child process, for tests that kill it.
final class ServerProcess: @unchecked Sendable {
    let baseURL: URL
    let firstAdminKey: String?
    /// What it printed until it listened.
    let startupText: String

    /// Starts the server on a free port with `dataDirectory`, and waits until it listens.
    ///
    /// The wait runs on a thread of its own: it polls the child's output, and on one of Swift's
    /// cooperative threads (two here) two servers starting at once starved every other test of
    /// the run (transport tests on a manual clock passed their one-minute limit).
    ///
    /// - Parameter errorLog: a file for what it writes to standard error (its log); none when nil.
    static func start(dataDirectory: URL, port: Int = 0, environment: [String: String] = [:], arguments: [String] = [],
                      errorLog: URL? = nil) async throws -> ServerProcess {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try startBlocking(dataDirectory: dataDirectory, port: port, environment: environment, arguments: arguments, errorLog: errorLog)
                })
            }
        }
    }

    /// The same, blocking the calling thread: ``start(dataDirectory:port:environment:arguments:)`` runs it on a thread of its own.
    private static func startBlocking(dataDirectory: URL, port: Int = 0, environment: [String: String] = [:], arguments: [String] = [],
                                      errorLog: URL? = nil) throws -> ServerProcess {
        let process = Process()
        process.executableURL = HandoverBinary.url
        process.arguments = ["serve", "--port", String(port), "--data-dir", dataDirectory.path] + arguments
        var env = ProcessInfo.processInfo.environment
        env["LOG_LEVEL"] = "error"
        // As a TestServer's: a test's run starts are answered however loaded the machine running
        // the suite is (a crash test's 503 under a full run); a test about shedding sets it.
        env["HANDOVER_QUEUE_TARGET"] = "off"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = ChildProcess.pipe()
        process.standardOutput = output
        if let errorLog, FileManager.default.createFile(atPath: errorLog.path, contents: nil), let handle = try? FileHandle(forWritingTo: errorLog) {
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        let buffer = LockedText()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { buffer.append(String(decoding: data, as: UTF8.self)) }
        }
        try ChildProcess.start(process)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = buffer.text
            if let range = text.range(of: #"listening on (http://[0-9.]+:[0-9]+)"#, options: .regularExpression), text.contains("Press Ctrl-C") {
                let url = String(text[range]).replacingOccurrences(of: "listening on ", with: "")
                // The first start writes its admin key to the data directory (issue 66, item 7).
                let written = dataDirectory.appendingPathComponent("first-admin-key")
                let key = text.contains(written.path)
                    ? (try? String(contentsOf: written, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                    : text.range(of: #"hov_[A-Za-z0-9_-]+"#, options: .regularExpression).map { String(text[$0]) }
                return ServerProcess(process: process, baseURL: URL(string: url)!, firstAdminKey: key, startupText: text)
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw ServerProcessError(description: "handover serve did not start: \(buffer.text)")
    }

    private init(process: Process, baseURL: URL, firstAdminKey: String?, startupText: String) {
        self.baseURL = baseURL
        self.firstAdminKey = firstAdminKey
        self.startupText = startupText
        self.running = process
    }

    private let running: Process

    /// SIGKILL, and the child reaped (at once: a killed process has nothing left to do).
    func kill() {
        Foundation.kill(running.processIdentifier, SIGKILL)
        running.waitUntilExit()
    }

    /// SIGTERM, and its exit status once it has shut down, awaited on a thread of its own: a
    /// graceful shutdown drains requests and closes the database, which can take seconds.
    func terminate() async -> Int32 {
        let running = running
        running.terminate()
        return (try? await ChildProcess.onOwnThread {
            running.waitUntilExit()
            return running.terminationStatus
        }) ?? -1
    }

    /// SIGTERM without waiting, for a `defer`: the child is reaped on a thread of its own.
    func terminateInBackground() {
        let running = running
        running.terminate()
        Thread.detachNewThread { running.waitUntilExit() }
    }

    struct Reply {
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    }

    /// A request; throws when the connection fails (for example, the server was killed).
    func request(_ method: String, _ path: String, json: Any? = nil, key: String? = nil) async throws -> Reply {
        let url = path.hasPrefix("http") ? URL(string: path)! : baseURL.appendingPathComponent(path)
        var request = URLRequest(url: url, timeoutInterval: 20)
        request.httpMethod = method
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    var description: String
}

final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var storage = ""
    func append(_ text: String) { lock.lock(); storage += text; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return storage }
}
