import Foundation
import NIOConcurrencyHelpers

/// The deliveries an outbox has on their way, by destination, across its passes.
///
/// A destination gets at most ``perDestination`` lanes, and the outbox at most ``total``. A lane
/// sends its destination's due deliveries one after another, so a healthy receiver's queue
/// drains at the speed it answers, while one that hangs until the timeout holds only its own
/// lanes: the other destinations' lanes go on, and a pass never waits for any of them.
package final class DeliveryLanes: Sendable {
    package let perDestination: Int
    package let total: Int

    private struct State {
        var open: [String: Int] = [:]
        package var tasks: [UUID: Task<Void, Never>] = [:]
    }
    private let state = NIOLockedValueBox(State())

    package init(perDestination: Int = 2, total: Int = 16) {
        self.perDestination = max(1, perDestination)
        self.total = max(1, total)
    }

    /// Destinations whose lanes are all taken: a pass leaves their deliveries for later.
    package var full: Set<String> {
        state.withLockedValue { state in Set(state.open.filter { $0.value >= perDestination }.keys) }
    }

    /// How many more lanes `destination` may open now.
    package func room(for destination: String) -> Int {
        state.withLockedValue { state in
            let used = state.open.values.reduce(0, +)
            return max(0, min(perDestination - state.open[destination, default: 0], total - used))
        }
    }

    /// Opens a lane for `destination` that runs `work`, and returns its task; nil when the
    /// destination or the outbox has no room. The lane closes when `work` returns.
    @discardableResult
    func open(_ destination: String, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        let id = UUID()
        return state.withLockedValue { state -> Task<Void, Never>? in
            let used = state.open.values.reduce(0, +)
            guard state.open[destination, default: 0] < perDestination, used < total else { return nil }
            state.open[destination, default: 0] += 1
            let task = Task {
                await work()
                self.close(id, destination)
            }
            state.tasks[id] = task
            return task
        }
    }

    private func close(_ id: UUID, _ destination: String) {
        state.withLockedValue { state in
            state.tasks[id] = nil
            let left = state.open[destination, default: 1] - 1
            state.open[destination] = left > 0 ? left : nil
        }
    }

    /// Lanes open now (for tests and metrics).
    package var openCount: Int { state.withLockedValue { $0.open.values.reduce(0, +) } }

    /// Waits until every lane open now has closed.
    package func waitForOpenLanes() async {
        let running = state.withLockedValue { Array($0.tasks.values) }
        for task in running { await task.value }
    }

    /// Cancels every open lane and waits for them (the server is stopping: an attempt cut off
    /// here is counted, and sent again after its lease).
    package func cancelAll() async {
        let running = state.withLockedValue { Array($0.tasks.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}

extension DeliveryLanes {
    /// What one pass started: its lanes, and how many deliveries they attempted.
    package struct Dispatch: Sendable {
        package let lanes: [Task<Void, Never>]
        fileprivate let attempted: NIOLockedValueBox<Int>

        /// A pass that started nothing.
        package static var none: Dispatch { Dispatch(lanes: [], attempted: NIOLockedValueBox(0)) }

        /// Waits for this pass's lanes; returns how many deliveries they attempted.
        package func finished() async -> Int {
            for lane in lanes { await lane.value }
            return attempted.withLockedValue { $0 }
        }
    }

    /// Opens lanes for `due` (in the order given), by destination, as far as there is room; each
    /// lane attempts its destination's deliveries one after another. Deliveries left without a
    /// lane stay due for a later pass. `attempt` answers whether it attempted the delivery (false
    /// when another pass or instance had it).
    package func dispatch<Delivery: Sendable>(_ due: [Delivery], by destination: (Delivery) -> String,
                                      _ attempt: @escaping @Sendable (Delivery) async -> Bool) -> Dispatch {
        var order: [String] = []
        var queues: [String: [Delivery]] = [:]
        for delivery in due {
            let key = destination(delivery)
            if queues[key] == nil { order.append(key) }
            queues[key, default: []].append(delivery)
        }
        let attempted = NIOLockedValueBox(0)
        var lanes: [Task<Void, Never>] = []
        for key in order {
            let rows = queues[key] ?? []
            let queue = NIOLockedValueBox(rows[...])
            for _ in 0..<min(room(for: key), rows.count) {
                guard let lane = open(key, {
                    while !Task.isCancelled, let next = queue.withLockedValue({ $0.popFirst() }) {
                        if await attempt(next) { attempted.withLockedValue { $0 += 1 } }
                    }
                }) else { break }
                lanes.append(lane)
            }
        }
        return Dispatch(lanes: lanes, attempted: attempted)
    }
}
