import Foundation
import NIOConcurrencyHelpers

/// Tasks that outlive the request that started them (the tester driving a simulated app);
/// cancelled when the server shuts down.
final class DetachedWork: Sendable {
    private let tasks = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])

    func start(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        let task = Task {
            await work()
            self.tasks.withLockedValue { $0[id] = nil }
        }
        tasks.withLockedValue { $0[id] = task }
    }

    func cancelAll() async {
        let running = tasks.withLockedValue { Array($0.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
