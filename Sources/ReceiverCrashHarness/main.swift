// A receiver in its own process, for the crash-consistency test: the test feeds it links on
// stdin and SIGKILLs it at random moments, then starts it again and checks that every link it
// acknowledged ("accepted <link>") has its callback in the log.
//
//   ReceiverCrashHarness <journal-folder> <callback-log>
//
// It recovers the journal at start, prints "ready", accepts links from stdin (one per line), and when stdin
// ends, waits for all work and prints "idle".
import Foundation
import HandoverClient
import LinkCallbacks
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func openForAppending(_ path: String) -> Int32 { open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600) }

/// Appends each opened URL to a log file and fsyncs it: the durable proof that a callback opened.
struct AppendingOpener: URLOpener {
    let path: String

    func open(_ url: URL) async -> Bool {
        let fd = openForAppending(path)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let line = Array((url.absoluteString + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == line.count && fsync(fd) == 0
    }
}

/// Writes a line to stdout at once (unbuffered), so the parent sees every acknowledgement
/// that was made before the kill.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: ReceiverCrashHarness <journal-folder> <callback-log>\n".utf8))
    exit(2)
}
do {
    let journal = try CommandJournal(folder: URL(fileURLWithPath: arguments[1]))
    let receiver = LogoutReceiver(
        configuration: ReceiverConfiguration(),
        journal: journal,
        opener: AppendingOpener(path: arguments[2]),
        handler: LogoutClosure { _ in .signedOut })
    receiver.appDidFinishLaunching()
    say("ready")
    while let line = readLine() {
        guard let url = URL(string: line) else { continue }
        if receiver.handle(url) {
            say("accepted \(line)")
        } else {
            say("refused \(line)")
        }
    }
    await receiver.waitUntilIdle()
    say("idle")
} catch {
    FileHandle.standardError.write(Data("ReceiverCrashHarness: \(error)\n".utf8))
    exit(1)
}
