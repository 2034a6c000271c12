import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The custody area's statements: what a check-out reads, locks and makes (its devices, its
/// people, the custodies in progress of `OpenCustody+Store`), the runs' check-in, the custody
/// report, the lending overruns and the retention pass. Plain SQL on one `SQLDatabase`, a few
/// statements a batch whatever its size: a shift's check-outs come by the thousand, inside the
/// one writer's transaction. ``CustodyLedger`` and the reports decide; this store reads and
/// writes the rows, in the caller's transaction.
package struct CustodyStore: Sendable {
    let sql: any SQLDatabase

    /// The store on `database`; nil when it does not speak SQL (SQLite and PostgreSQL do).
    package init?(_ database: DatabaseHandle) {
        guard let sql = database as? any SQLDatabase else { return nil }
        self.sql = sql
    }

    // MARK: A check-out's locks and devices

    /// Takes the rows of the batch's `devices` and reads each one's site and site key, in one
    /// statement (``DeviceLifeCycle/lock(_:returning:on:)``): written first, SQLite takes its
    /// write lock; PostgreSQL locks the rows, whose sites then stay as read until the batch
    /// commits.
    func lockSites(of devices: Set<UUID>) async throws -> [UUID: (site: String?, key: String?)] {
        let rows = try await DeviceLifeCycle.lock(devices, returning: "site, site_key", on: sql)
        return try Dictionary(rows.map {
            (try $0.decode(column: "id", as: UUID.self), (try $0.decode(column: "site", as: String?.self), try $0.decode(column: "site_key", as: String?.self)))
        }) { first, _ in first }
    }

    /// Holds the rest of the caller's transaction against any other that names one of the same
    /// `keys`: PostgreSQL's transaction-scoped advisory locks, in one statement; nothing on SQLite,
    /// whose writer is one at a time already. `unnest` reads the array in its order, so every
    /// batch takes its locks in the keys' sorted order and two batches never wait for each other
    /// in a circle.
    func serialize(_ keys: [String]) async throws {
        guard sql.dialect.name == "postgresql", !keys.isEmpty else { return }
        try await sql.raw("SELECT pg_advisory_xact_lock(hashtextextended(key, 0)) FROM unnest(\(bind: Set(keys).sorted())::text[]) AS key").run()
    }

    /// The names of `devices`, sorted: what a refused check-out names.
    func names(of devices: [UUID]) async throws -> [String] {
        try await sql.raw("SELECT name FROM devices WHERE id IN (\(SQLList(devices.map { SQLBind($0) })))").all()
            .map { try $0.decode(column: "name", as: String.self) }.sorted()
    }

    // MARK: A check-out's people

    /// The users with these ids, oldest first: one statement.
    func users(ids: Set<UUID>) async throws -> [CustodyRules.Holder] {
        try await users(where: "id", in: ids.map { SQLBind($0) })
    }

    /// The users with these (lowercased) emails, oldest first: one statement.
    func users(emails: Set<String>) async throws -> [CustodyRules.Holder] {
        try await users(where: "email", in: emails.map { SQLBind($0) })
    }

    /// The users whose `column` is one of `values`, oldest first.
    private func users(where column: String, in values: [SQLBind]) async throws -> [CustodyRules.Holder] {
        guard !values.isEmpty else { return [] }
        return try await sql.raw("""
            SELECT id, full_name, email FROM users WHERE \(ident: column) IN (\(SQLList(values))) ORDER BY created_at, id
            """).all().map { row in
            CustodyRules.Holder(id: try row.decode(column: "id", as: UUID.self), fullName: try row.decode(column: "full_name", as: String?.self),
                                email: try row.decode(column: "email", as: String?.self))
        }
    }

    /// Writes the users `made` (logins seen for the first time), created at `now`: one statement.
    func insertUsers(_ made: [CustodyRules.Holder], now: Date) async throws {
        try await sql.raw("""
            INSERT INTO users (id, email, email_forwarding_disabled, created_at)
            VALUES \(SQLList(made.map { "(\(bind: $0.id), \(bind: $0.email), \(bind: false), \(bind: now))" as SQLQueryString }))
            """).run()
    }

    // MARK: Custodies in progress (`OpenCustody+Store`)

    /// The custodies in progress of these people or on these devices: one statement.
    func open(people: Set<UUID>, devices: Set<UUID>) async throws -> [OpenCustody] {
        try await OpenCustody.open(people: people, devices: devices, on: sql)
    }

    /// Ends custodies in progress that the next person took over: one statement.
    func end(_ ids: [UUID], at now: Date) async throws {
        try await OpenCustody.end(ids, at: now, on: sql)
    }

    /// Writes new custodies: one statement.
    func insert(_ custodies: [OpenCustody]) async throws {
        try await OpenCustody.insert(custodies, on: sql)
    }

    // MARK: Reads by device

    /// The custody in progress of `device`, if anyone holds it.
    static func holder(of device: UUID, on database: DatabaseHandle) async throws -> Custody? {
        try await Custody.query(on: database).filter(\.$deviceID == device).filter(\.$checkedInAt == nil).first()
    }

    /// The device's custodies, newest first.
    static func history(of device: UUID, limit: Int, on database: DatabaseHandle) async throws -> [Custody] {
        try await Custody.query(on: database).filter(\.$deviceID == device).sort(\.$checkedOutAt, .descending).limit(limit).all()
    }

    // MARK: The report

    /// A page of `report`'s rows, `pageSize` a page, and how many there are in all: a count, the
    /// page, and one statement more for the apps their hand-overs left signed in.
    func page(of report: CustodyReport, pageSize: Int) async throws -> CustodyReport.Page {
        let page = report.page
        let total = try await sql.raw("SELECT COUNT(*) AS n FROM custodies c WHERE \(report.condition)").first()?.decode(column: "n", as: Int.self) ?? 0
        // `page` is at most `maximumPage`; a caller's larger `pageSize` gets an empty page, not a trap.
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: max(1, pageSize))
        guard !overflow else { return CustodyReport.Page(rows: [], total: total, page: page) }
        let rows = try await sql.raw("""
            SELECT c.id, c.device_id, COALESCE(d.name, '') AS device_name, c.site, c.user_id, c.person_name, c.person_email, c.checked_out_by,
                   c.checked_out_at, c.checked_in_at, c.run_id, r.status AS run_status, c.ended_without_run
            FROM custodies c LEFT JOIN devices d ON d.id = c.device_id LEFT JOIN logout_runs r ON r.id = c.run_id
            WHERE \(report.condition) ORDER BY c.checked_out_at DESC, c.id LIMIT \(unsafeRaw: String(max(1, pageSize))) OFFSET \(unsafeRaw: String(offset))
            """).all()
        var result = try rows.map { row in
            CustodyReport.Row(id: try row.decode(column: "id", as: UUID.self), deviceID: try row.decode(column: "device_id", as: UUID.self),
                deviceName: try row.decode(column: "device_name", as: String.self), site: try row.decode(column: "site", as: String?.self),
                userID: try row.decode(column: "user_id", as: UUID.self), personName: try row.decode(column: "person_name", as: String?.self),
                personEmail: try row.decode(column: "person_email", as: String?.self),
                checkedOutBy: try row.decode(column: "checked_out_by", as: String.self),
                checkedOutAt: try row.decode(column: "checked_out_at", as: Date.self),
                checkedInAt: try row.decode(column: "checked_in_at", as: Date?.self), runID: try row.decode(column: "run_id", as: UUID?.self),
                runStatus: try row.decode(column: "run_status", as: String?.self).flatMap(LogoutRunState.init(rawValue:)),
                appsLeftSignedIn: [], endedWithoutRun: try row.decode(column: "ended_without_run", as: String?.self))
        }
        let runs = result.compactMap(\.runID)
        if !runs.isEmpty {
            let unfinished = try await sql.raw("""
                SELECT run_id, app_name FROM logout_items WHERE run_id IN (\(binds: runs)) AND status <> \(bind: LogoutItemState.succeeded.rawValue)
                ORDER BY position
                """).all()
            var byRun: [UUID: [String]] = [:]
            for row in unfinished { byRun[try row.decode(column: "run_id", as: UUID.self), default: []].append(try row.decode(column: "app_name", as: String.self)) }
            for index in result.indices { result[index].appsLeftSignedIn = result[index].runID.flatMap { byRun[$0] } ?? [] }
        }
        return CustodyReport.Page(rows: result, total: total, page: page)
    }

    // MARK: Lending overruns

    /// Up to `limit` devices of `sites` held past their lending period (``LendingOverruns``), the
    /// longest held first, and how many there are in all: one statement of two arms.
    func overruns(_ settings: CustodySettings, visibleTo sites: SiteFilter, limit: Int, now: Date) async throws -> (rows: [LendingOverruns.Row], total: Int) {
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
        var found: [LendingOverruns.Row] = []
        for row in rows {
            let site = try row.decode(column: "device_site", as: String?.self)
            guard let period = settings.lendingPeriod(site: site) else { continue }
            let out = try row.decode(column: "checked_out_at", as: Date.self)
            let back = try row.decode(column: "checked_in_at", as: Date?.self)
            guard (back ?? now).timeIntervalSince(out) > period else { continue }
            let user = try row.decode(column: "user_id", as: UUID.self)
            found.append(LendingOverruns.Row(
                deviceID: try row.decode(column: "device_id", as: UUID.self), deviceName: try row.decode(column: "device_name", as: String.self),
                deviceStatus: try row.decode(column: "device_status", as: DeviceStatus.self), site: site, userID: user,
                personLabel: try row.decode(column: "person_name", as: String?.self) ?? row.decode(column: "person_email", as: String?.self)
                    ?? user.uuidString.lowercased(),
                checkedOutAt: out, checkedInAt: back, lendingPeriod: period))
        }
        return (Array(found.prefix(limit)), found.count)
    }

    // MARK: Retention

    /// Removes the names from records checked in before `before`; returns how many.
    func forgetNames(checkedInBefore before: Date) async throws -> Int {
        try await sql.raw("""
            UPDATE custodies SET person_name = NULL, person_email = NULL, badge_digest = NULL
            WHERE checked_in_at < \(bind: before) AND (person_name IS NOT NULL OR person_email IS NOT NULL OR badge_digest IS NOT NULL)
            RETURNING id
            """).all().count
    }
}

extension CustodyLedger {
    /// Checks the devices of a batch of starting runs in: the hand-over. One statement for the
    /// batch, inside the runs' transaction (the open custodies' partial index finds each).
    package static func checkIn(_ handOvers: [(device: UUID, run: UUID)], on sql: any SQLDatabase, now: Date) async throws {
        guard !handOvers.isEmpty else { return }
        // VALUES names its columns column1, column2 on SQLite and PostgreSQL alike.
        let rows = handOvers.map { handOver -> SQLQueryString in "(\(bind: handOver.device), \(bind: handOver.run))" }
        try await sql.raw("""
            UPDATE custodies SET checked_in_at = \(bind: now), run_id = handover.column2
            FROM (VALUES \(SQLList(rows))) AS handover
            WHERE custodies.device_id = handover.column1 AND custodies.checked_in_at IS NULL
            """).run()
    }
}

extension CustodyReport {
    /// The report's filters as an SQL condition on `custodies c`.
    fileprivate var condition: SQLQueryString {
        var clause: SQLQueryString = sites.condition("c.site_key")
        if let from { clause = clause + " AND c.checked_out_at >= \(bind: from)" }
        if let to { clause = clause + " AND c.checked_out_at < \(bind: to)" }
        if let device { clause = clause + " AND c.device_id = \(bind: device)" }
        if let person { clause = clause + " AND c.user_id = \(bind: person)" }
        if let personText {
            let pattern = "%" + personText.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            clause = clause + """
                 AND (LOWER(COALESCE(c.person_name, '')) LIKE \(bind: pattern) ESCAPE '\\' OR LOWER(COALESCE(c.person_email, '')) LIKE \(bind: pattern) ESCAPE '\\')
                """
        }
        return clause
    }
}

extension CustodySettings {
    /// The moment before which a device of the site whose ``SiteName/key`` is in `column` (such
    /// as `d.site_key`) has been held too long, as an SQL expression: `now` less its site's
    /// lending period, or NULL (never) for a site with no period.
    package func lendingCutoff(site column: String, now: Date) -> SQLQueryString {
        let fleet: SQLQueryString = fleetLendingPeriod.map { "\(bind: now.addingTimeInterval(-$0))" } ?? "NULL"
        guard !siteLendingPeriods.isEmpty else { return fleet }
        var expression: SQLQueryString = "CASE"
        for (site, period) in siteLendingPeriods.sorted(by: { $0.key.key < $1.key.key }) {
            expression = "\(expression) WHEN \(unsafeRaw: column) = \(bind: site.key) THEN \(bind: now.addingTimeInterval(-period))"
        }
        return "\(expression) ELSE \(fleet) END"
    }
}
