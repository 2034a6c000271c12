import SQLKit

/// SQLite's write-ahead log copied back into the database file by a background pass on a reader
/// connection, rather than by whichever commit crossed SQLite's threshold.
///
/// By default the commit that takes the log past 1,000 pages copies them all (and syncs the
/// file) before it returns, on the one writer's path: every callback queued behind that commit
/// waits for it, once every few dozen batches of a shift change. A passive checkpoint on another
/// connection does the same work beside the writer, which keeps appending to the log meanwhile.
/// The writer still checkpoints by itself past ``writerBackstopPages``, should this pass fall
/// behind or stop. Issue 37.
struct WALCheckpoint: Sendable {
    /// The log size (pages of 4 KB) at which the writer's own commit checkpoints after all.
    static let writerBackstopPages = 10_000

    /// A connection of the readers' pool.
    let reader: any SQLDatabase

    /// Sets the writer's threshold to the backstop (a setting of the connection; the writer has
    /// one for the server's life).
    static func configureWriter(_ writer: any SQLDatabase) async throws {
        try await writer.raw("PRAGMA wal_autocheckpoint = \(unsafeRaw: String(writerBackstopPages))").run()
    }

    /// One passive checkpoint: copies what it can without waiting for anyone. Returns the log's
    /// frames and how many of them are now in the database file.
    @discardableResult
    func pass() async throws -> (logFrames: Int, checkpointed: Int) {
        guard let row = try await reader.raw("PRAGMA wal_checkpoint(PASSIVE)").first() else { return (0, 0) }
        return (try row.decode(column: "log", as: Int.self), try row.decode(column: "checkpointed", as: Int.self))
    }
}
