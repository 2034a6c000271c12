import Foundation
import NIOConcurrencyHelpers

/// Group commit: a writer takes all the work that arrived while it was busy and writes it in one
/// transaction, so a burst costs one COMMIT (one fsync on SQLite) and, where the writing
/// function writes rows in bulk, a few statements, instead of a transaction each. The callbacks
/// of a shift change go through one (``LogoutRunService/record(_:)``), its run starts through
/// another (``LogoutRunService/createRuns(_:readingAppsOn:)``).
///
/// Durability is unchanged: a request waits until the transaction that holds its work has
/// committed, so a 2xx still means the change is in the database. The writing function answers
/// each piece of work as if it came alone.
package final class GroupCommit<Work: Sendable, Output: Sendable>: Sendable {
    /// Writes a batch; one result per piece of work, in the order given.
    package typealias Write = @Sendable ([Work]) async -> [Result<Output, any Error>]

    private struct Waiting {
        let work: Work
        let continuation: CheckedContinuation<Output, any Error>
    }

    private struct Queue {
        var waiting: [Waiting] = []
        var writers = 0
    }

    /// The most pieces of work in one transaction.
    package let maxBatch: Int
    private let queue = NIOLockedValueBox(Queue())

    package init(maxBatch: Int = 256) {
        self.maxBatch = maxBatch
    }

    /// Queues `work` and returns once it is committed (or failed).
    ///
    /// - Parameters:
    ///   - writers: how many batches may be written at once (``LogoutRunService/groupCommitWriters``).
    ///   - write: writes a batch, on the application's database (not one request's). The writer
    ///     started by this call uses it until the queue is empty.
    package func submit(_ work: Work, writers: Int, write: @escaping Write) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriter = queue.withLockedValue { queue in
                queue.waiting.append(Waiting(work: work, continuation: continuation))
                guard queue.writers < writers else { return false }
                queue.writers += 1
                return true
            }
            // The writer runs at high priority, whoever started it: it is the serial part of every
            // write (one SQLite connection), and each statement of its batch hops between threads.
            // At the caller's priority each hop queued behind the requests being parsed, encoded
            // and answered, and the writer, with every write waiting for it, was held that much
            // longer. (On 2 cores: closed-loop callbacks 1.07x, storm p99s up to 21 % lower below
            // the machine's limit; no change past it.)
            if startsWriter {
                Task(priority: .high) { await self.drain(using: write) }
            }
        }
    }

    /// Writes batches until nobody waits.
    private func drain(using write: Write) async {
        while true {
            let batch: [Waiting] = queue.withLockedValue { queue in
                let batch = Array(queue.waiting.prefix(maxBatch))
                queue.waiting.removeFirst(batch.count)
                if batch.isEmpty { queue.writers -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            let results = await write(batch.map(\.work))
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            // A writing function that answered fewer than it was given must not leave anyone waiting.
            for waiting in batch.dropFirst(results.count) {
                waiting.continuation.resume(throwing: DomainError(.storage, code: "unanswered", reason: "The batch's writer gave no answer for this change."))
            }
        }
    }
}
