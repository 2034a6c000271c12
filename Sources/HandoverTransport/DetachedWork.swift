import Foundation
import NIOConcurrencyHelpers

/// Tasks that the server cancels when it shuts down: the tester driving a simulated app (work
/// that outlives the request that started it), and the event streams ``HTTPTransport`` is
/// writing (``RequestsInFlight``).
package final class DetachedWork: Sendable {
    private let tasks = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])

    package init() {}

    package func start(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        // Made under the lock, so a task that ends at once finds its entry to remove.
        tasks.withLockedValue { tasks in
            tasks[id] = Task {
                await work()
                self.tasks.withLockedValue { $0[id] = nil }
            }
        }
    }

    /// Cancels every task still running, without waiting for it.
    package func cancel() {
        for task in tasks.withLockedValue({ Array($0.values) }) { task.cancel() }
    }

    /// Cancels every task still running and waits for each to end.
    package func cancelAll() async {
        let running = tasks.withLockedValue { Array($0.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
