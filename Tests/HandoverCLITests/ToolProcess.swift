import Foundation

/// Runs another program (openssl, zbarimg, psql) to its end and returns what it wrote to
/// standard output; standard error is discarded. `status` is its exit status.
enum ToolProcess {
    static func run(_ executable: URL, _ arguments: [String]) throws -> (output: Data, status: Int32) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (data, process.terminationStatus)
    }

    /// A program found on `PATH`, through `/usr/bin/env`.
    static func run(_ arguments: [String]) throws -> (output: Data, status: Int32) {
        try run(URL(fileURLWithPath: "/usr/bin/env"), arguments)
    }
}
