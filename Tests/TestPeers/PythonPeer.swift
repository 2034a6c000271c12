import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback peer written in Python for the tests (never linked by `handover`) (`Tests/Peers/*.py`): started with a file to write its port
/// to, read within five seconds, and killed with SIGKILL (a child of the test runner may inherit
/// SIGTERM ignored).
public struct PythonPeer: Sendable {
    public let process: Process
    public let port: Int

    public init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// The folder of the peers' scripts.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers")

    /// Whether python3 can import `module`; prints why a test skips when it cannot.
    public static func canImport(_ module: String, skipping what: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import \(module)"]
        probe.standardError = FileHandle.nullDevice
        probe.standardOutput = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        if probe.terminationStatus != 0 {
            print("SKIP \(what): python3 with \(module) is not installed (bash .ci/run installs what the tests need)")
        }
        return probe.terminationStatus == 0
    }

    /// Starts `script` with `arguments`, the port file's path put where `portFileAt` says (by
    /// default, first).
    public static func start(_ script: String, _ arguments: [String] = [], portFileAt position: Int = 0) async throws -> PythonPeer {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(script)-\(UUID().uuidString).port")
        var all = arguments
        all.insert(portFile.path, at: min(position, all.count))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", folder.appendingPathComponent(script).path] + all
        try process.run()
        var port: Int?
        for _ in 0..<200 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let value = Int(text) { port = value; break }
            try await Task.sleep(for: .milliseconds(25))
        }
        try? FileManager.default.removeItem(at: portFile)
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(script) did not start"])
        }
        return PythonPeer(process: process, port: port)
    }

    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
