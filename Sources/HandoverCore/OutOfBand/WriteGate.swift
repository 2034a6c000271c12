/// Lets one task at a time write to SQLite, in arrival order.
///
/// SQLite has one writer per database, and SQLiteNIO's busy handler retries a locked write at
/// once, so two connections writing together spin on a thread-pool thread until the first commits.
/// Queuing writers here instead keeps latency flat under concurrency. On PostgreSQL the gate is
/// open (row locks and conditional updates are enough).
package actor WriteGate {
    private let serializes: Bool
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init(serializes: Bool) { self.serializes = serializes }

    /// Runs `body` alone among this gate's writers (on SQLite).
    package nonisolated func write<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        guard serializes else { return try await body() }
        await acquire()
        do {
            let value = try await body()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}
