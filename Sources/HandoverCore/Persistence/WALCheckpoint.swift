import NIOConcurrencyHelpers
import SQLKit
import Foundation

/// SQLite's write-ahead log copied back into the database file by a background pass on a
/// connection of its own, rather than by whichever commit crossed SQLite's threshold.
///
/// By default the commit that takes the log past 1,000 pages copies them all (and syncs the
/// file) before it returns, on the one writer's path: every callback queued behind that commit
/// waits for it, once every few dozen batches of a shift change. A passive checkpoint on another
/// connection does the same work beside the writer, which keeps appending to the log meanwhile.
/// The writer still checkpoints by itself past ``writerBackstopPages``, should this pass fall
/// behind or stop. Issue 37.
///
/// The pause between passes follows the log's growth (``WALCheckpointPace``: 25 to 100 ms).
package struct WALCheckpoint: Sendable {
    /// The pace of the passes, set by each one.
    private let pace = NIOLockedValueBox(WALCheckpointPace())

    /// The pause before the next pass.
    package var pause: Duration { pace.withLockedValue { $0.pause } }

    /// The log size (pages of 4 KB) at which the writer's own commit checkpoints after all.
    package static let writerBackstopPages = 10_000

    /// The checkpoints' own connection (``DatabaseID/sqliteCheckpoints``). Not a reader's: the
    /// readers' pool has one connection per event loop, and a pass there (copying and syncing)
    /// held back every read of its loop, the API key of each request on it included.
    package let connection: any SQLDatabase

    package init(connection: any SQLDatabase) {
        self.connection = connection
    }

    /// Sets the writer's threshold to the backstop (a setting of the connection; the writer has
    /// one for the server's life).
    package static func configureWriter(_ writer: any SQLDatabase) async throws {
        try await writer.raw("PRAGMA wal_autocheckpoint = \(unsafeRaw: String(writerBackstopPages))").run()
    }

    /// One passive checkpoint: copies what it can without waiting for anyone. Returns the log's
    /// frames and how many of them are now in the database file.
    @discardableResult
    package func pass() async throws -> (logFrames: Int, checkpointed: Int) {
        guard let row = try await connection.raw("PRAGMA wal_checkpoint(PASSIVE)").first() else { return (0, 0) }
        let (log, checkpointed) = (try row.decode(column: "log", as: Int.self), try row.decode(column: "checkpointed", as: Int.self))
        pace.withLockedValue { $0.passed(logFrames: log) }
        return (log, checkpointed)
    }
}
