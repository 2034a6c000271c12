import Foundation
import NIOConcurrencyHelpers

/// When each API key was last used, device keys included: noted in memory by every request and
/// written in one statement per pass (``flush(on:)``), so that a shift change's thousands of
/// device keys cost no write on the requests' path. A crash loses at most one pass's notes (the
/// key lists say "to the minute"); a list reads this instance's notes first. The statement is
/// ``KeyStore``'s (``KeyStore/writeLastUses(_:chunk:)``).
package final class KeyUses: Sendable {
    private let pending = NIOLockedValueBox<[UUID: Date]>([:])

    /// Keys per statement: three binds each, well under SQLite's and PostgreSQL's limits.
    static let chunk = 300

    package init() {}

    /// Notes that `key` was used at `now`.
    package func note(_ key: UUID, at now: Date) {
        pending.withLockedValue { pending in
            if let known = pending[key], known >= now { return }
            pending[key] = now
        }
    }

    /// Keys noted and not yet written.
    package var count: Int { pending.withLockedValue { $0.count } }

    /// Writes the noted uses; returns how many keys.
    @discardableResult
    package func flush(on database: DatabaseHandle) async throws -> Int {
        let uses = pending.withLockedValue { pending in
            defer { pending = [:] }
            return pending.sorted { $0.key.uuidString < $1.key.uuidString }
        }
        let store = KeyStore(database)
        guard !uses.isEmpty, store.speaksSQL else { return 0 }
        do {
            try await store.writeLastUses(uses, chunk: Self.chunk)
        } catch {
            // Kept for the next pass (newer notes win).
            pending.withLockedValue { pending in for (key, at) in uses where (pending[key] ?? .distantPast) < at { pending[key] = at } }
            throw error
        }
        return uses.count
    }
}
