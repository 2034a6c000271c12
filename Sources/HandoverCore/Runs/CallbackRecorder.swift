import Foundation
import NIOConcurrencyHelpers

/// Records callbacks with group commit: a writer takes every callback that arrived while it was
/// busy and records them in one transaction, so a burst of callbacks costs one COMMIT (one fsync
/// on SQLite) instead of one each. SQLite has one writer; PostgreSQL a few (``writers(for:)``).
///
/// Durability is unchanged: a request waits until the transaction that holds its recording has
/// committed, so a 2xx still means the outcome is in the database. Each callback is checked as if
/// alone (``LogoutRunService/record(_:)``): two callbacks for the same item in one batch record
/// once and answer 409 once, in arrival order.
package final class CallbackRecorder: Sendable {
    private struct Waiting {
        package let callback: LogoutRunService.Callback
        package let at: Date
        package let continuation: CheckedContinuation<LogoutRunService.Recording, any Error>
    }

    private struct Queue {
        package var waiting: [Waiting] = []
        package var writers = 0
    }

    /// The most callbacks in one transaction.
    package let maxBatch: Int
    private let queue = NIOLockedValueBox(Queue())

    package init(maxBatch: Int = 256) {
        self.maxBatch = maxBatch
    }

    /// Records one callback and returns once it is committed (or failed).
    ///
    /// - Parameter runs: the service to write with, on the application's database (not one
    ///   request's). The writer started by this call uses it until the queue is empty.
    package func record(_ callback: LogoutRunService.Callback, using runs: LogoutRunService) async throws -> LogoutRunService.Recording {
        let at = runs.clock.now()
        return try await withCheckedThrowingContinuation { continuation in
            let writers = Self.writers(for: runs)
            let startsWriter = queue.withLockedValue { queue in
                queue.waiting.append(Waiting(callback: callback, at: at, continuation: continuation))
                guard queue.writers < writers else { return false }
                queue.writers += 1
                return true
            }
            if startsWriter {
                Task { await self.write(using: runs) }
            }
        }
    }

    /// How many batches may be written at once. SQLite: one, as it writes one transaction at a
    /// time anyway (a second writer would only wait on the lock). PostgreSQL: a few, each on its
    /// own connection; batches lock runs in id order, so they never wait on each other in a cycle.
    package static func writers(for runs: LogoutRunService) -> Int {
        runs.changes.usesPostgres ? 4 : 1
    }

    /// Writes batches until nobody waits.
    private func write(using runs: LogoutRunService) async {
        while true {
            let batch: [Waiting] = queue.withLockedValue { queue in
                let batch = Array(queue.waiting.prefix(maxBatch))
                queue.waiting.removeFirst(batch.count)
                if batch.isEmpty { queue.writers -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            let results = await runs.record(batch.map { ($0.callback, $0.at) })
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
        }
    }
}
