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
}
