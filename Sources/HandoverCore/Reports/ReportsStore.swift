import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

// The reports' reads: the week's usage report (``UsageReportStore``) and the dashboard's
// overview (``FleetOverviewStore``).

/// Reads a ``UsageReport`` from the database: five grouped statements, whatever the fleet's
/// size (runs by their `created_at` index, custodies by device).
package enum UsageReportStore {
    /// The most not-seen devices a site's entry names (all are counted).
    package static let notSeenListed = 200

    /// The week that starts at `start` (``ShiftCalendar/weekStart(of:)``), for the sites `sites` shows.
    package static func read(weekStarting start: Date, calendar: ShiftCalendar, sites: SiteFilter, on db: any Database) async throws -> UsageReport {
        guard let sql = db as? any SQLDatabase else {
            throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.")
        }
        let end = calendar.weekEnd(start)
        let shifts = calendar.shifts(ofWeekStarting: start)
        let filter = sites.condition("d.site_key")
        var bySite: [String: UsageReport.SiteUsage] = [:]  // by site key; "" for no site
        func entry(_ key: String?, _ name: String?) -> String {
            let key = key ?? ""
            if bySite[key] == nil { bySite[key] = UsageReport.SiteUsage(site: name, inUse: Array(repeating: 0, count: shifts.count)) }
            return key
        }

        for row in try await sql.raw("""
            SELECT d.site_key AS site_key, MIN(d.site) AS site, COUNT(*) AS devices FROM devices d
            WHERE d.created_at < \(bind: end) AND d.status <> \(bind: DeviceStatus.retired.rawValue) AND \(filter) GROUP BY d.site_key
            """).all() {
            let key = entry(try row.decode(column: "site_key", as: String?.self), try row.decode(column: "site", as: String?.self))
            bySite[key]?.devices = try row.decode(column: "devices", as: Int.self)
        }
        for row in try await sql.raw("""
            SELECT d.site_key AS site_key, MIN(d.site) AS site, r.status AS status, COUNT(*) AS runs
            FROM logout_runs r JOIN devices d ON d.id = r.device_id
            WHERE r.created_at >= \(bind: start) AND r.created_at < \(bind: end) AND \(filter)
            GROUP BY d.site_key, r.status
            """).all() {
            let key = entry(try row.decode(column: "site_key", as: String?.self), try row.decode(column: "site", as: String?.self))
            let count = try row.decode(column: "runs", as: Int.self)
            bySite[key]?.handOvers += count
            switch LogoutRunState(rawValue: try row.decode(column: "status", as: String.self)) {
            case .completed: bySite[key]?.completed += count
            case .failed: bySite[key]?.failed += count
            default: bySite[key]?.running += count
            }
        }
        let unsigned = SQLList([LogoutItemState.failed, .timedOut].map { SQLBind($0.rawValue) })
        for row in try await sql.raw("""
            SELECT d.site_key AS site_key, MIN(d.site) AS site, i.app_name AS app, COUNT(*) AS failures
            FROM logout_runs r JOIN logout_items i ON i.run_id = r.id JOIN devices d ON d.id = r.device_id
            WHERE r.created_at >= \(bind: start) AND r.created_at < \(bind: end) AND i.status IN (\(unsigned)) AND \(filter)
            GROUP BY d.site_key, i.app_name
            """).all() {
            let key = entry(try row.decode(column: "site_key", as: String?.self), try row.decode(column: "site", as: String?.self))
            bySite[key]?.failuresByApp.append(.init(app: try row.decode(column: "app", as: String.self), count: try row.decode(column: "failures", as: Int.self)))
        }
        if !shifts.isEmpty {
            let windows = SQLList(shifts.enumerated().map { index, shift in
                SQLQueryString("(\(literal: index), \(bind: shift.start), \(bind: shift.end))") as any SQLExpression
            })
            for row in try await sql.raw("""
                WITH shifts (n, s, e) AS (VALUES \(windows))
                SELECT u.n AS n, u.site_key AS site_key, MIN(u.site) AS site, COUNT(DISTINCT u.device_id) AS devices FROM (
                  SELECT s.n AS n, c.device_id AS device_id, d.site_key AS site_key, d.site AS site FROM shifts s
                  JOIN custodies c ON c.checked_out_at < s.e AND (c.checked_in_at IS NULL OR c.checked_in_at >= s.s)
                  JOIN devices d ON d.id = c.device_id
                  WHERE c.checked_out_at < \(bind: end) AND (c.checked_in_at IS NULL OR c.checked_in_at >= \(bind: start)) AND \(filter)
                  UNION ALL
                  SELECT s.n, r.device_id, d.site_key, d.site FROM shifts s
                  JOIN logout_runs r ON r.created_at >= s.s AND r.created_at < s.e
                  JOIN devices d ON d.id = r.device_id
                  WHERE r.created_at >= \(bind: start) AND r.created_at < \(bind: end) AND \(filter)
                ) u GROUP BY u.n, u.site_key
                """).all() {
                let key = entry(try row.decode(column: "site_key", as: String?.self), try row.decode(column: "site", as: String?.self))
                let shift = try row.decode(column: "n", as: Int.self)
                if shifts.indices.contains(shift) { bySite[key]?.inUse[shift] = try row.decode(column: "devices", as: Int.self) }
            }
        }
        for row in try await sql.raw("""
            SELECT d.site_key AS site_key, d.site AS site, d.name AS name FROM devices d
            WHERE d.created_at < \(bind: end) AND d.status <> \(bind: DeviceStatus.retired.rawValue) AND \(filter)
              AND NOT EXISTS (SELECT 1 FROM logout_runs r WHERE r.device_id = d.id AND r.created_at >= \(bind: start) AND r.created_at < \(bind: end))
              AND NOT EXISTS (SELECT 1 FROM custodies c WHERE c.device_id = d.id AND c.checked_out_at < \(bind: end)
                              AND (c.checked_in_at IS NULL OR c.checked_in_at >= \(bind: start)))
            ORDER BY d.site_key, d.name
            """).all() {
            let key = entry(try row.decode(column: "site_key", as: String?.self), try row.decode(column: "site", as: String?.self))
            bySite[key]?.notSeenCount += 1
            if (bySite[key]?.notSeen.count ?? 0) < notSeenListed { bySite[key]?.notSeen.append(try row.decode(column: "name", as: String.self)) }
        }
        let sites = bySite.map { key, usage -> UsageReport.SiteUsage in
            var usage = usage
            usage.failuresByApp.sort { ($0.count, $1.app) > ($1.count, $0.app) }
            return usage
        }.sorted { left, right in
            switch (left.site, right.site) {
            case (nil, _): false
            case (_, nil): true
            case (let l?, let r?): SiteName.key(of: l) < SiteName.key(of: r)
            }
        }
        return UsageReport(week: calendar.weekName(start), start: start, end: end, shifts: shifts, shiftNames: shifts.map(calendar.name), sites: sites)
    }
}

/// The statements of the dashboard's overview (``FleetOverview/load(sites:custody:now:on:)`` reads
/// through them, in its order): counts by the status index, lists bounded.
package enum FleetOverviewStore {
    /// Reads every device of `sites` that has not retired, by name.
    package static func listedDevices(visibleTo sites: SiteFilter, on database: DatabaseHandle) async throws -> [Device] {
        try await Device.query(on: database).visible(to: sites).filter(\.$status != .retired).sort(\.$name).all()
    }

    /// Reads the devices of `sites` that need attention, longest waiting first, at most `limit`.
    package static func attentionQueue(visibleTo sites: SiteFilter, limit: Int, on database: DatabaseHandle) async throws -> [Device] {
        try await Device.query(on: database).visible(to: sites).filter(\.$status ~~ DeviceStatus.allCases.filter(\.needsAttention))
            .sort(\.$statusChangedAt).limit(limit).all()
    }

    /// Reads the items of the runs `runIDs`, in their order.
    package static func items(ofRuns runIDs: [UUID], on database: DatabaseHandle) async throws -> [LogoutItem] {
        try await LogoutItem.query(on: database).filter(\.$runID ~~ runIDs).sort(\.$position).all()
    }

    /// Reads the runs `ids`.
    package static func runs(_ ids: [UUID], on database: DatabaseHandle) async throws -> [LogoutRun] {
        try await LogoutRun.query(on: database).filter(\.$id ~~ ids).all()
    }

    /// Reads the devices `ids`.
    package static func devices(_ ids: Set<UUID>, on database: DatabaseHandle) async throws -> [Device] {
        try await Device.query(on: database).filter(\.$id ~~ ids).all()
    }

    /// The last `count` runs on devices of `sites`, newest first.
    package static func recentRuns(_ count: Int, sites: SiteFilter, on database: any Database) async throws -> [LogoutRun] {
        guard sites != .everySite, let sql = database as? any SQLDatabase else {
            return try await LogoutRun.query(on: database).sort(\.$createdAt, .descending).limit(count).all()
        }
        let ids = try await sql.raw("""
            SELECT r.id FROM logout_runs r JOIN devices d ON d.id = r.device_id WHERE \(sites.condition("d.site_key"))
            ORDER BY r.created_at DESC LIMIT \(unsafeRaw: String(count))
            """).all().map { try $0.decode(column: "id", as: UUID.self) }
        return ids.isEmpty ? [] : try await LogoutRun.query(on: database).filter(\.$id ~~ ids).sort(\.$createdAt, .descending).all()
    }

    /// How many devices of `sites` are in each status: one pass over the status index.
    package static func deviceCounts(on database: any Database, sites: SiteFilter = .everySite) async throws -> [DeviceStatus: Int] {
        let sql = try ServerDatabases.sql(database)
        var counts: [DeviceStatus: Int] = [:]
        for row in try await sql.raw("SELECT status, COUNT(*) AS n FROM devices WHERE \(sites.condition()) GROUP BY status").all() {
            if let status = DeviceStatus(rawValue: try row.decode(column: "status", as: String.self)) {
                counts[status] = try row.decode(column: "n", as: Int.self)
            }
        }
        return counts
    }
}
