import Foundation

/// A provisioned person as the People page lists them: whether they also sign in to the
/// dashboard, whether a badge is set (never the badge), their roles and the devices they hold.
package struct DirectoryListing: Sendable, Equatable {
    package var id: UUID
    package var displayName: String?
    package var login: String?
    package var userName: String
    package var active: Bool
    package var hasBadge: Bool
    package var grants: String
    package var signsIn: Bool
    package var devicesHeld: [String]
    package var deprovisionedAt: Date?
    package var updatedAt: Date

    /// The newest `limit` provisioned people, with what the page shows of each (``DirectoryStore``
    /// reads them).
    package static func newest(_ limit: Int, on db: DatabaseHandle) async throws -> [DirectoryListing] {
        try await DirectoryStore.listings(newest: limit, on: db)
    }
}
