import Foundation
import HandoverProtocol

/// The devices held past their lending period, for the overview: those held now for longer than
/// their site's (or the fleet's) period, and those whose last holder kept them that long and
/// that are not back in service yet (the overdue pass started their hand-over, which nobody
/// answered). Each with who held it, so IT knows whom to call.
package struct LendingOverruns: Sendable {
    package let settings: CustodySettings

    package init(settings: CustodySettings) { self.settings = settings }

    /// One device held too long.
    package struct Row: Sendable, Equatable {
        package var deviceID: UUID
        package var deviceName: String
        package var deviceStatus: DeviceStatus
        package var site: String?
        package var userID: UUID
        package var personLabel: String
        package var checkedOutAt: Date
        /// Nil while the person still holds it.
        package var checkedInAt: Date?
        package var lendingPeriod: TimeInterval
    }

    /// Up to `limit` devices of `sites`, the longest held first, and how many there are in all.
    package func list(visibleTo sites: SiteFilter, limit: Int = 50, on database: DatabaseHandle, now: Date) async throws -> (rows: [Row], total: Int) {
        guard settings.checksLending, let store = CustodyStore(database) else { return ([], 0) }
        return try await store.overruns(settings, visibleTo: sites, limit: limit, now: now)
    }
}
