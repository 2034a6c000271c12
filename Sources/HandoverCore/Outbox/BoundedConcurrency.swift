/// Runs `work` on each of `items`, at most `width` at a time, and counts the items it answered
/// true for. The outboxes send their due deliveries this way, so that one receiver that hangs
/// until the timeout holds up only its own deliveries.
package func countConcurrently<Item: Sendable>(_ items: [Item], width: Int, _ work: @escaping @Sendable (Item) async throws -> Bool) async throws -> Int {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        var queue = items[...]
        var counted = 0
        for _ in 0..<max(1, width) {
            guard let item = queue.popFirst() else { break }
            group.addTask { try await work(item) }
        }
        while let done = try await group.next() {
            if done { counted += 1 }
            if let item = queue.popFirst() { group.addTask { try await work(item) } }
        }
        return counted
    }
}
