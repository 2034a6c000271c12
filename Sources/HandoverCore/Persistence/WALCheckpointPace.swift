/// How long SQLite's background checkpoint (``WALCheckpoint``) pauses between passes: set by how
/// fast the log grows, so that a pass copies about ``pagesPerPass`` pages, within
/// ``shortestPause`` and ``longestPause``. SQLite's own automatic checkpoint counts pages too,
/// not time.
///
/// Why both ends (issue 37, measured on 2 cores):
/// - A large checkpoint stalls the writer: its sync of the database file and the writer's sync of
///   the log meet in the file system, and the COMMIT waits. In the closed loop (callbacks on items
///   all over the table, about 2,400 new log pages per 100 ms) a pass every 100 ms gave p99 11-18
///   ms, every 50 ms 10-12 ms, every 25 ms 9-10 ms.
/// - Frequent checkpoints cost the shift change: the pages its writer touches in every commit
///   (the newest runs, items and audit entries) are copied again at every pass. The 10,000-phone
///   storm gave callback p99 42.5, 65.6 and 77.3 ms with a pass every 25 ms, against 42.5-47.5
///   ms every 100 ms.
package struct WALCheckpointPace: Sendable, Equatable {
    /// The pages a pass should copy: SQLite's own threshold. The closed loop's log grows by
    /// about 2,400 pages per 100 ms (a pass every 42 ms), the 10,000-phone storm's by 930 (p50;
    /// p90 1,250), which keeps it near 100 ms.
    package static let pagesPerPass = 1_000
    package static let shortestPause = Duration.milliseconds(25)
    package static let longestPause = Duration.milliseconds(100)

    /// The pause before the next pass.
    package private(set) var pause = Self.longestPause
    /// The log's frames after the last pass.
    private var lastLogFrames = 0

    package init() {}

    /// Notes what a pass found, and sets the next pause: the one in which the log, growing as it
    /// just did, gains ``pagesPerPass`` pages.
    ///
    /// - Parameter logFrames: the frames in the log after the pass. Fewer than the last pass
    ///   found means the writer started the log over since, and all of them are new.
    package mutating func passed(logFrames: Int) {
        let added = logFrames >= lastLogFrames ? logFrames - lastLogFrames : logFrames
        lastLogFrames = logFrames
        guard added > 0 else {
            pause = Self.longestPause
            return
        }
        let seconds = pause / .seconds(1) * Double(Self.pagesPerPass) / Double(added)
        pause = min(max(.seconds(seconds), Self.shortestPause), Self.longestPause)
    }
}
