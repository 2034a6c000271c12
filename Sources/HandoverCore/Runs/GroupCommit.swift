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
    /// How long a batch's waiters wait for its write before they are answered
    /// ``DomainError/databaseUnavailable`` (nil: as long as it takes), and the sleep that measures it.
    private let deadline: (limit: Duration, sleep: @Sendable (Duration) async throws -> Void)?
    private let queue = NIOLockedValueBox(Queue())

    /// - Parameters:
    ///   - maxBatch: the most pieces of work in one transaction.
    ///   - deadline: how long a batch's requests wait for its write, and the sleep (the server's
    ///     clock) that measures it; nil waits as long as the write takes. A write past its deadline
    ///     answers its requests ``DomainError/databaseUnavailable`` (a 503 with `Retry-After`) and is
    ///     left to finish or fail on its own, while the writer goes on with the next batch: a query
    ///     that never completes (a PostgreSQL restart can leave one on a connection it closed) then
    ///     costs its requests one deadline, and takes no writer with it.
    package init(maxBatch: Int = 256, deadline: (limit: Duration, sleep: @Sendable (Duration) async throws -> Void)? = nil) {
        self.maxBatch = maxBatch
        self.deadline = deadline
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
    private func drain(using write: @escaping Write) async {
        while true {
            let batch: [Waiting] = queue.withLockedValue { queue in
                let batch = Array(queue.waiting.prefix(maxBatch))
                queue.waiting.removeFirst(batch.count)
                if batch.isEmpty { queue.writers -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            let works = batch.map(\.work)
            let results = if let deadline { await Self.write(works, using: write, within: deadline.limit, sleep: deadline.sleep) } else { await write(works) }
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            // A writing function that answered fewer than it was given must not leave anyone waiting.
            for waiting in batch.dropFirst(results.count) {
                waiting.continuation.resume(throwing: DomainError(.storage, code: "unanswered", reason: "The batch's writer gave no answer for this change."))
            }
        }
    }

    /// `write(works)`, or, when it has not answered within `limit`, ``DomainError/databaseUnavailable``
    /// for each piece of work (the write goes on in a task of its own, whose answer is dropped).
    /// A write that answers in time cancels the deadline's sleep, so no sleeper outlives its batch.
    private static func write(_ works: [Work], using write: @escaping Write, within limit: Duration,
                              sleep: @escaping @Sendable (Duration) async throws -> Void) async -> [Result<Output, any Error>] {
        let answered = NIOLockedValueBox(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<[Result<Output, any Error>], Never>) in
            let deadline = Task(priority: .high) {
                do { try await sleep(limit) } catch { return }  // cancelled: the write answered in time
                guard answered.withLockedValue({ let first = !$0; $0 = true; return first }) else { return }
                continuation.resume(returning: works.map { _ in .failure(DomainError.databaseUnavailable) })
            }
            Task(priority: .high) {
                let results = await write(works)
                guard answered.withLockedValue({ let first = !$0; $0 = true; return first }) else { return }
                deadline.cancel()
                continuation.resume(returning: results)
            }
        }
    }
}
