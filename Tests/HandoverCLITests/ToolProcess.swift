import Foundation
import TestPeers

/// Runs another program (openssl, zbarimg, psql) to its end and returns what it wrote to
/// standard output; standard error is discarded. `status` is its exit status. It waits on a
/// thread of its own (``ChildProcess``).
enum ToolProcess {
    static func run(_ executable: URL, _ arguments: [String]) async throws -> (output: Data, status: Int32) {
        let result = try await ChildProcess.run(executable, arguments)
        return (result.output, result.status)
    }

    /// A program found on `PATH`, through `/usr/bin/env`.
    static func run(_ arguments: [String]) async throws -> (output: Data, status: Int32) {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), arguments)
    }
}
