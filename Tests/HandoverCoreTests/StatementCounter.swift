import Foundation
import Logging

/// How many statements ran.
final class StatementCount: @unchecked Sendable {
    private let lock = NSLock()
    private var counted = 0
    var value: Int { lock.withLock { counted } }
    func add() { lock.withLock { counted += 1 } }
}

/// Counts the statements a database runs: SQLKit logs each as "Executing query".
struct StatementCounter: LogHandler {
    let count: StatementCount
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if "\(event.message)" == "Executing query" { count.add() }
    }
}
