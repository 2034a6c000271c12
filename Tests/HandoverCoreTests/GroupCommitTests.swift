@testable import HandoverCore
import Testing

/// ``GroupCommit``'s writer.
@Suite struct GroupCommitTests {
    /// The batch writer runs at high priority, whoever started it. In a shift change the one
    /// SQLite writer is the server's serial part: each statement of a batch hops between threads,
    /// and at the caller's priority each hop queued behind the requests being parsed, encoded and
    /// answered, so the writer was held longer and every write behind it waited.
    @Test func theBatchWriterRunsAtHighPriorityWhoeverStartedIt() async throws {
        let commit = GroupCommit<Int, TaskPriority>()
        let priority = try await Task(priority: .low) {
            try await commit.submit(1, writers: 1) { batch in batch.map { _ in .success(Task.currentPriority) } }
        }.value
        #expect(priority == .high)
    }

    /// Each caller gets the answer for its own work, whichever batch it went into.
    @Test func eachCallerGetsTheAnswerForItsOwnWork() async throws {
        let commit = GroupCommit<Int, Int>(maxBatch: 4)
        let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for value in 0..<50 {
                group.addTask { (value, try await commit.submit(value, writers: 1) { batch in batch.map { .success($0 * 10) } }) }
            }
            var answers: [Int: Int] = [:]
            for try await (value, answer) in group { answers[value] = answer }
            return answers
        }
        #expect(answers.count == 50)
        #expect(answers.allSatisfy { $0.value == $0.key * 10 })
    }

    /// A write that never answers (a PostgreSQL restart can leave a query so on a connection it
    /// closed; found by `FailoverTests`, where requests hung past a minute) answers its requests
    /// ``DomainError/databaseUnavailable`` at the deadline, on the server's clock, and the writer
    /// goes on: the next batch is written and answered.
    @Test func aWriteThatNeverAnswersIsAnsweredUnavailableAtTheDeadline() async throws {
        let clock = ManualServerClock()
        let commit = GroupCommit<Int, Int>(deadline: (limit: .seconds(20), sleep: { try await clock.sleep(for: $0) }))
        let (hang, release) = AsyncStream<Void>.makeStream()
        let write: GroupCommit<Int, Int>.Write = { batch in
            if batch.contains(1) { for await _ in hang {} }
            return batch.map { .success($0 * 10) }
        }
        let first = Task { try await commit.submit(1, writers: 1, write: write) }
        await clock.untilSleeping()
        clock.advance(by: 19)
        clock.advance(by: 1)
        await #expect(throws: DomainError.databaseUnavailable) { try await first.value }
        #expect(try await commit.submit(2, writers: 1, write: write) == 20)
        release.finish()
    }

    /// A write that answers in time takes its deadline's sleep with it: no sleeper outlives its
    /// batch (on the server's clock a left-over sleeper would be counted by tests that wait for
    /// the server's own waits, and in production thousands would pile up in a storm).
    @Test(.timeLimit(.minutes(1))) func aWriteInTimeLeavesNoSleeperBehind() async throws {
        let clock = ManualServerClock()
        let commit = GroupCommit<Int, Int>(deadline: (limit: .seconds(20), sleep: { try await clock.sleep(for: $0) }))
        for value in 1...20 {
            #expect(try await commit.submit(value, writers: 1) { batch in batch.map { .success($0) } } == value)
        }
        // Each cancelled sleep leaves the clock's list as soon as its task runs.
        while clock.sleeping > 0 { await Task.yield() }
        #expect(clock.sleeping == 0)
    }
}
