import FluentKit
import Foundation
import SQLKit

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

    /// The newest `limit` provisioned people, with what the page shows of each.
    package static func newest(_ limit: Int, on db: any Database) async throws -> [DirectoryListing] {
        let sql = try DirectoryStore.sql(db)
        let rows = try await sql.raw("""
            SELECT u.id, u.display_name, u.login, u.user_name, u.active, u.badge_digest, u.grants, u.deprovisioned_at, u.updated_at,
              (SELECT COUNT(*) FROM people p WHERE LOWER(p.email) = u.login) AS signs_in
            FROM directory_users u WHERE u.deleted_at IS NULL ORDER BY u.updated_at DESC, u.id LIMIT \(bind: limit)
            """).all()
        var listings = try rows.map { row in
            DirectoryListing(id: try row.decode(column: "id", as: UUID.self), displayName: try row.decode(column: "display_name", as: String?.self),
                             login: try row.decode(column: "login", as: String?.self), userName: try row.decode(column: "user_name", as: String.self),
                             active: try row.decode(column: "active", as: Bool.self),
                             hasBadge: try row.decode(column: "badge_digest", as: String?.self) != nil,
                             grants: try row.decode(column: "grants", as: String.self), signsIn: try row.decode(column: "signs_in", as: Int.self) > 0,
                             devicesHeld: [], deprovisionedAt: try row.decode(column: "deprovisioned_at", as: Date?.self),
                             updatedAt: try row.decode(column: "updated_at", as: Date.self))
        }
        let logins = listings.compactMap(\.login)
        guard !logins.isEmpty else { return listings }
        let held = try await sql.raw("""
            SELECT LOWER(us.email) AS login, d.name FROM custodies c JOIN users us ON us.id = c.user_id JOIN devices d ON d.id = c.device_id
            WHERE c.checked_in_at IS NULL AND LOWER(us.email) IN (\(binds: logins)) ORDER BY d.name
            """).all()
        var devices: [String: [String]] = [:]
        for row in held { devices[try row.decode(column: "login", as: String.self), default: []].append(try row.decode(column: "name", as: String.self)) }
        for index in listings.indices { listings[index].devicesHeld = listings[index].login.flatMap { devices[$0] } ?? [] }
        return listings
    }
}
