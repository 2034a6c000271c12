import FluentKit
import Foundation
import HandoverProtocol
import SQLKit

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
    package func list(visibleTo sites: SiteFilter, limit: Int = 50, on database: any Database, now: Date) async throws -> (rows: [Row], total: Int) {
        guard settings.checksLending, let sql = database as? any SQLDatabase else { return ([], 0) }
        let cutoff = settings.lendingCutoff(site: "d.site_key", now: now)
        let attention = SQLList(DeviceStatus.allCases.filter(\.needsAttention).map { SQLBind($0.rawValue) })
        // Held now past the period (the open custodies' partial index); or the last custody of a
        // device that still needs attention (few: from the devices' status index), whose length
        // is checked here. Two arms, so neither reads the whole custody history.
        let columns: SQLQueryString = """
            c.device_id, c.user_id, c.person_name, c.person_email, c.checked_out_at, c.checked_in_at,
            d.name AS device_name, d.status AS device_status, d.site AS device_site
            """
        let rows = try await sql.raw("""
            SELECT \(columns) FROM custodies c JOIN devices d ON d.id = c.device_id
            WHERE c.checked_in_at IS NULL AND c.checked_out_at < \(cutoff) AND \(sites.condition("d.site_key"))
            UNION ALL
            SELECT \(columns) FROM devices d JOIN custodies c ON c.device_id = d.id AND c.run_id = d.last_run_id
            WHERE d.status IN (\(attention)) AND c.checked_in_at IS NOT NULL AND \(sites.condition("d.site_key"))
            ORDER BY checked_out_at
            """).all()
        var found: [Row] = []
        for row in rows {
            let site = try row.decode(column: "device_site", as: String?.self)
            guard let period = settings.lendingPeriod(site: site) else { continue }
            let out = try row.decode(column: "checked_out_at", as: Date.self)
            let back = try row.decode(column: "checked_in_at", as: Date?.self)
            guard (back ?? now).timeIntervalSince(out) > period else { continue }
            let user = try row.decode(column: "user_id", as: UUID.self)
            found.append(Row(
                deviceID: try row.decode(column: "device_id", as: UUID.self), deviceName: try row.decode(column: "device_name", as: String.self),
                deviceStatus: try row.decode(column: "device_status", as: DeviceStatus.self), site: site, userID: user,
                personLabel: try row.decode(column: "person_name", as: String?.self) ?? row.decode(column: "person_email", as: String?.self)
                    ?? user.uuidString.lowercased(),
                checkedOutAt: out, checkedInAt: back, lendingPeriod: period))
        }
        return (Array(found.prefix(limit)), found.count)
    }
}
