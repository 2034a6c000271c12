import FluentKit
import SQLKit
import Vapor

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
/// The server runs a pass every 25 ms (``pause``), a trade measured on 2 cores (release builds):
/// - The closed loop's p99 follows the pause: a smaller checkpoint syncs less, and a COMMIT whose
///   sync meets the checkpoint's waits less behind it. Traced: every few hundred milliseconds
///   one COMMIT took 10-20 ms where the others took under 1 ms, each time beside a checkpoint
///   of a few thousand pages.
/// - The shift change paid for short pauses while a callback wrote four indexes of its item: a
///   page the writer touches in every commit is copied at every checkpoint. Then a 20 ms pause
///   took the 6,000-phone storm's callback p50/p99 from 13-28 / 63-228 ms to 26-107 / 102-573
///   ms, and the pause was 100 ms (closed-loop p99 25-30 ms; 20 ms gave 17-21 ms).
/// - Since a callback writes two (``TrimCallbackIndexes``, version 27), the log grows by a
///   third less and the storm no longer pays: 10,000 phones, callback p99 42.7 ms at 25 ms,
///   44.8 and 50.6 ms at 50 ms, 42.5-47.5 ms at 100 ms (one sitting, noise about 5 ms). The
///   closed loop's p99 (96,000 items, 1 s slices): 9.3-10.0 ms at 25 ms, 10.2-11.9 ms at 50 ms,
///   11.4-17.7 ms at 100 ms, 12.6-17.0 ms at 200 ms.
struct WALCheckpoint: Sendable {
    /// The pause between two passes.
    static let pause = Duration.milliseconds(25)

    /// The log size (pages of 4 KB) at which the writer's own commit checkpoints after all.
    static let writerBackstopPages = 10_000

    /// The checkpoints' own connection (``DatabaseID/sqliteCheckpoints``). Not a reader's: the
    /// readers' pool has one connection per event loop, and a pass there (copying and syncing)
    /// held back every read of its loop, the API key of each request on it included.
    let connection: any SQLDatabase

    /// Sets the writer's threshold to the backstop (a setting of the connection; the writer has
    /// one for the server's life).
    static func configureWriter(_ writer: any SQLDatabase) async throws {
        try await writer.raw("PRAGMA wal_autocheckpoint = \(unsafeRaw: String(writerBackstopPages))").run()
    }

    /// One passive checkpoint: copies what it can without waiting for anyone. Returns the log's
    /// frames and how many of them are now in the database file.
    @discardableResult
    func pass() async throws -> (logFrames: Int, checkpointed: Int) {
        guard let row = try await connection.raw("PRAGMA wal_checkpoint(PASSIVE)").first() else { return (0, 0) }
        return (try row.decode(column: "log", as: Int.self), try row.decode(column: "checkpointed", as: Int.self))
    }
}

extension DatabaseID {
    /// The connection SQLite's background checkpoint runs on (``WALCheckpoint``), one for the
    /// server, beside the writer and the readers. Not configured on PostgreSQL.
    static let sqliteCheckpoints = DatabaseID(string: "sqlite-checkpoints")
}

extension HandoverServer {
    /// The background checkpoint of SQLite's log, on its own connection; nil on PostgreSQL.
    static func walCheckpoint(of application: Application) -> WALCheckpoint? {
        guard application.databases.configuration(for: .sqliteCheckpoints) != nil,
              let connection = application.databases.database(.sqliteCheckpoints, logger: application.logger,
                                                              on: application.eventLoopGroup.any()) as? any SQLDatabase else { return nil }
        return WALCheckpoint(connection: connection)
    }
}
