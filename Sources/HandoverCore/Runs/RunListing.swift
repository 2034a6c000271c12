import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The runs area's dashboard store: runs and what they left, and the apps' scorecards, read for
/// the dashboard's pages (the shift change's own statements are ``LogoutRunRows``').
extension LogoutRun {
    /// The runs with these ids (those that still exist), by id.
    package static func byID(_ ids: [UUID], on database: any Database) async throws -> [UUID: LogoutRun] {
        guard !ids.isEmpty else { return [:] }
        let runs = try await query(on: database).filter(\.$id ~~ ids).all()
        return Dictionary(runs.compactMap { run in run.id.map { ($0, run) } }, uniquingKeysWith: { first, _ in first })
    }
}

extension LogoutItemReissue {
    /// The reissues of a run's items.
    package static func all(ofRun run: UUID, on database: any Database) async throws -> [LogoutItemReissue] {
        try await query(on: database).filter(\.$runID == run).all()
    }
}

extension BackChannelLogoutDelivery {
    /// The logout tokens sent to a run's apps' backends.
    package static func all(ofRun run: UUID, on database: any Database) async throws -> [BackChannelLogoutDelivery] {
        try await query(on: database).filter(\.$runID == run).all()
    }
}

extension AppScorecard {
    /// Reads the app's items finished in the last 30 days (one indexed query) and scores them.
    /// With `sites` naming sites, only runs on their devices count.
    package static func load(app: UUID, now: Date, sites: SiteFilter = .everySite, on sql: any SQLDatabase) async throws -> AppScorecard {
        let rows = try await sql.raw("""
            SELECT i.status AS state, i.finished_at AS finished_at, r.created_at AS started_at
            FROM logout_items i JOIN logout_runs r ON r.id = i.run_id
            WHERE i.app_id = \(bind: app) AND i.finished_at >= \(bind: now.addingTimeInterval(-30 * 86_400))
            AND i.finished_at <= \(bind: now)\(runsAt(sites, column: "i.run_id"))
            """).all()
        let outcomes = try rows.compactMap { row -> Outcome? in
            guard let state = LogoutItemState(rawValue: try row.decode(column: "state", as: String.self)) else { return nil }
            let finished = try row.decode(column: "finished_at", as: Date.self)
            let started = try row.decode(column: "started_at", as: Date.self)
            return Outcome(state: state, finishedAt: finished, seconds: max(0, finished.timeIntervalSince(started)))
        }
        return AppScorecard(outcomes: outcomes, now: now)
    }

    /// Counts of one app's finished items over the last 7 and 30 days, without times: the
    /// scorecards' list reads these (one indexed count per app) and leaves percentiles to the
    /// app's own page.
    package static func counts(app: UUID, now: Date, sites: SiteFilter = .everySite,
                               on sql: any SQLDatabase) async throws -> (last7: Window, last30: Window) {
        let since7 = now.addingTimeInterval(-7 * 86_400)
        let rows = try await sql.raw("""
            SELECT status, COUNT(*) AS total, SUM(CASE WHEN finished_at >= \(bind: since7) THEN 1 ELSE 0 END) AS recent
            FROM logout_items WHERE app_id = \(bind: app) AND finished_at >= \(bind: now.addingTimeInterval(-30 * 86_400))
            AND finished_at <= \(bind: now)\(runsAt(sites, column: "run_id")) GROUP BY status
            """).all()
        var last7 = Window(days: 7), last30 = Window(days: 30)
        for row in rows {
            let total = try row.decode(column: "total", as: Int.self)
            let recent = try row.decode(column: "recent", as: Int?.self) ?? 0
            switch LogoutItemState(rawValue: try row.decode(column: "status", as: String.self)) {
            case .succeeded: last30.succeeded = total; last7.succeeded = recent
            case .failed: last30.failed = total; last7.failed = recent
            case .timedOut: last30.timedOut = total; last7.timedOut = recent
            case .pending, nil: break
            }
        }
        return (last7, last30)
    }

    /// ` AND <column> IN (runs on devices of sites)`, or nothing for every site.
    private static func runsAt(_ sites: SiteFilter, column: String) -> SQLQueryString {
        guard sites != .everySite else { return "" }
        return " AND \(unsafeRaw: column) IN (SELECT sr.id FROM logout_runs sr JOIN devices sd ON sd.id = sr.device_id WHERE \(sites.condition("sd.site_key")))"
    }
}
