import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback peer written in Python for the tests (never linked by `handover`) (`Tests/Peers/*.py`):
/// it prints the port it listens on as its first line, which `start` awaits (or the peer's end),
/// and it is killed with SIGKILL (a child of the test runner may inherit SIGTERM ignored).
public struct PythonPeer: Sendable {
    public let process: SpawnedProgram
    public let port: Int

    public init(process: SpawnedProgram, port: Int) {
        self.process = process
        self.port = port
    }

    /// The folder of the peers' scripts.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers")

    /// Whether python3 can import `module`; prints why a test skips when it cannot.
    ///
    /// Each module is probed once per test process, by one task that every caller awaits, and
    /// python3 is waited for on a thread of its own (``ChildProcess``): a dozen suites probing at
    /// their start once held Swift's two cooperative threads for seconds at a time.
    public static func canImport(_ module: String, skipping what: String) async -> Bool {
        let probe = probedLock.withLock {
            if let running = probed[module] { return running }
            let started = Task { await ChildProcess.succeeds(["python3", "-c", "import \(module)"]) }
            probed[module] = started
            return started
        }
        let available = await probe.value
        if !available {
            print("SKIP \(what): python3 with \(module) is not installed (bash .ci/run installs what the tests need)")
        }
        return available
    }

    nonisolated(unsafe) private static var probed: [String: Task<Bool, Never>] = [:]  // guarded by probedLock
    private static let probedLock = NSLock()

    /// Starts `script` with `arguments` and waits for the port it prints.
    public static func start(_ script: String, _ arguments: [String] = []) async throws -> PythonPeer {
        let output = ChildProcess.pipe()
        let firstLine = FirstLine()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if firstLine.append(data) { handle.readabilityHandler = nil }
        }
        // The wait ends on an event, never on a timer: the first line, or the peer's end (its
        // output closing, or its exit). A peer that hangs without printing is the suite's time
        // limit's to stop.
        let process = try SpawnedProgram.start(URL(fileURLWithPath: "/usr/bin/env"),
                                               ["python3", folder.appendingPathComponent(script).path] + arguments, output: output)
        process.onExit { _ in firstLine.finish() }
        let port = await firstLine.value.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let port else {
            process.signal(SIGKILL)
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(script) ended without printing its port"])
        }
        return PythonPeer(process: process, port: port)
    }

    /// Runs `script` once with `arguments` to its end; returns its exit status and what it
    /// printed (standard output and error together), waiting on a thread of its own
    /// (``ChildProcess``): a script that calls back into the server under test (discovery, JWKS,
    /// introspection) must not starve the server it waits for.
    public static func run(_ script: String, _ arguments: [String], input: Data? = nil) async throws -> (status: Int32, output: String) {
        let result = try await ChildProcess.run(["python3", folder.appendingPathComponent(script).path] + arguments,
                                                input: input, mergingErrors: true)
        return (result.status, result.outputText)
    }

    /// Kills the peer (SIGKILL) and waits for its end.
    public func stop() {
        process.signal(SIGKILL)
        _ = process.wait()
    }
}

/// The first line a peer prints, handed to whoever awaits it once it is complete (nil when the
/// output ended first).
private final class FirstLine: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var line: String??
    private var waiting: CheckedContinuation<String?, Never>?

    /// Adds output; returns true once the line is complete or the output ended (no more needed).
    func append(_ data: Data) -> Bool {
        lock.lock()
        guard line == nil else { lock.unlock(); return true }
        if data.isEmpty {
            line = .some(nil)
        } else {
            buffer.append(data)
            guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { lock.unlock(); return false }
            line = .some(String(decoding: buffer[..<newline], as: UTF8.self))
        }
        let resume = waiting
        waiting = nil
        let value = line!
        lock.unlock()
        resume?.resume(returning: value)
        return true
    }

    /// Ends the wait with nil (the peer ended without printing its line).
    func finish() { _ = append(Data()) }

    var value: String? {
        get async {
            await withCheckedContinuation { continuation in
                lock.lock()
                if let line {
                    lock.unlock()
                    continuation.resume(returning: line)
                } else {
                    waiting = continuation
                    lock.unlock()
                }
            }
        }
    }
}
