import Foundation

/// Forgets who held a device once a custody record is older than the retention period
/// (``CustodySettings/retention``, six years by default): the person's name, email and badge
/// digest are removed from records checked in before then; the device, the site, the times, the
/// run and its outcome, and the person's opaque user id are kept. Open custodies are never
/// touched. The server runs it hourly; it is idempotent.
package struct CustodyRetention: Sendable {
    package let retention: TimeInterval

    package init(retention: TimeInterval) { self.retention = retention }

    /// Removes the names from records checked in before `now` less the retention; returns how many.
    @discardableResult
    package func forgetExpiredNames(on database: DatabaseHandle, now: Date) async throws -> Int {
        guard let store = CustodyStore(database) else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
        let before = now.addingTimeInterval(-retention)
        return try await store.forgetNames(checkedInBefore: before)
    }
}
