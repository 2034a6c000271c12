import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The devices' statements: their statuses and locks, their history, the MDM commands they owe,
/// the fleet's listings and search, the overdue pass's read, an import's rows and a device's
/// retirement or deletion. The services of the area (``DeviceLifeCycle``, ``DeviceRetirement``,
/// ``DeviceSearch``, ``OverdueDevices``, ``EraseConfirmation``, ``MDMPolicy``, ...) decide; this
/// store reads and writes the rows, in the caller's transaction.
package struct DeviceStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) { self.database = database }

    /// The database as SQL (SQLite and PostgreSQL both speak it); throws ``DomainError``
    /// (`no_sql`) for one that does not.
    private func sqlDatabase() throws -> any SQLDatabase {
        return try ServerDatabases.sql(database, code: "no_sql")
    }

    /// The device's name; nil for an unknown device. One plain statement (PostgreSQL keeps it
    /// prepared), where reading the whole row through FluentKit took a plan each time: every
    /// check-out reads it.
    package func name(of deviceID: UUID) async throws -> String? {
        try await sqlDatabase().raw("SELECT name FROM devices WHERE id = \(bind: deviceID)").first(decodingColumn: "name", as: String.self)
    }

    // MARK: Statuses and locks

    /// Takes the device's row before reading it (PostgreSQL locks it; SQLite takes its write lock
    /// with the no-op write) and reads its status; nil for an unknown device (or a database that
    /// does not speak SQL).
    package func lockStatus(of deviceID: UUID) async throws -> DeviceStatus? {
        guard let sql = database as? any SQLDatabase,
              let row = try await sql.raw("UPDATE devices SET status = status WHERE id = \(bind: deviceID) RETURNING status").first()
        else { return nil }
        return try row.decode(column: "status", as: DeviceStatus.self)
    }

    /// ``DeviceLifeCycle/lock(_:on:)`` on this store's database: the statuses of the devices that
    /// exist among `ids`, their rows locked; none on a database that does not speak SQL.
    package func lock(_ ids: Set<UUID>) async throws -> [UUID: DeviceStatus] {
        guard let sql = database as? any SQLDatabase else { return [:] }
        return try await DeviceLifeCycle.lock(ids, on: sql)
    }

    /// Writes the new statuses of `moves` (devices the caller holds, each with the status it
    /// moves to on `event`): one UPDATE per shape of change. `note` (a person's) replaces each
    /// step's reason; `returns` restarts the overdue clock (back in service).
    package func setStatuses(_ moves: [(step: DeviceLifeCycle.Step, to: DeviceStatus)], on event: DeviceStatus.Event, note: String?, returns: Bool,
                             now: Date) async throws {
        let sql = try sqlDatabase()
        // One UPDATE per shape: whether the status changes (its time and reason with it), and
        // whether the overdue clock starts again (a completed hand-over, or back in service).
        struct Shape: Hashable { var changes: Bool; var restartsClock: Bool }
        let shapes = Dictionary(grouping: moves) { move in
            Shape(changes: move.to != move.step.from, restartsClock: (event == .runCompleted && move.step.from != .outOfService) || returns)
        }
        // The caller holds every row, so the order of these statements does not matter.
        for (shape, group) in shapes {
            var changes: [SQLQueryString] = ["status = step.column2"]
            if shape.changes {
                changes.append("status_changed_at = \(bind: now)")
                changes.append("status_reason = step.column3")
            }
            if shape.restartsClock { changes.append("last_completed_at = \(bind: now)") }
            // A run that starts is the device's last run, in the same statement.
            let startsRun = event == .runStarted
            if startsRun { changes.append("last_run_id = step.column4") }
            // VALUES names its columns column1, column2, … on SQLite and PostgreSQL alike.
            let rows = group.map { move -> SQLQueryString in
                startsRun
                    ? "(\(bind: move.step.device), \(bind: move.to.rawValue), \(bind: note ?? move.step.reason), \(bind: move.step.run))"
                    : "(\(bind: move.step.device), \(bind: move.to.rawValue), \(bind: note ?? move.step.reason))"
            }
            try await sql.raw("""
                UPDATE devices SET \(SQLList(changes)) FROM (VALUES \(SQLList(rows))) AS step WHERE devices.id = step.column1
                """).run()
        }
    }

    // MARK: History

    /// ``DeviceHistoryLog/write(_:on:now:)`` on this store's database: the steps' history rows,
    /// audit log entries and the compliance changes they signal.
    package func writeHistory(_ steps: [DeviceHistoryLog.Step], now: Date) async throws {
        try await DeviceHistoryLog.write(steps, on: sqlDatabase(), now: now)
    }

    /// A device's history, newest first; at most `limit` steps.
    package func history(of deviceID: UUID, limit: Int) async throws -> [DeviceHistoryEntry] {
        try await DeviceHistoryEntry.query(on: database).filter(\.$deviceID == deviceID)
            .sort(\.$createdAt, .descending).limit(limit).all()
    }

    // MARK: MDM commands

    /// Cancels every remedy still owed for `devices` (every command, lifting Lost Mode included,
    /// with `remediesOnly` false) and records each in its device's history with `reason` (one
    /// statement each); returns how many.
    package func cancelOwedCommands(for devices: [UUID], deviceStatus: DeviceStatus, actor: String, reason: String, remediesOnly: Bool,
                                    now: Date) async throws -> Int {
        guard !devices.isEmpty else { return 0 }
        let sql = try sqlDatabase()
        let owed = MDMCommandState.allCases.filter(\.isOwed).map { SQLBind($0.rawValue) }
        let remedies = MDMAction.allCases.filter { $0.isRemedy || !remediesOnly }.map { SQLBind($0.rawValue) }
        let rows = try await sql.raw("""
            UPDATE mdm_commands SET status = \(bind: MDMCommandState.cancelled.rawValue), last_error = \(bind: reason),
            in_flight_since = NULL, version = version + 1
            WHERE device_id IN (\(SQLList(devices.map { SQLBind($0) }))) AND status IN (\(SQLList(owed))) AND action IN (\(SQLList(remedies)))
            RETURNING device_id, action, connector
            """).all()
        guard !rows.isEmpty else { return 0 }
        let history = try rows.map { row -> DeviceHistoryLog.Step in
            let action = try row.decode(column: "action", as: MDMAction.self).rawValue.replacingOccurrences(of: "_", with: " ")
            let connector = try row.decode(column: "connector", as: String.self)
            return DeviceHistoryLog.Step(device: try row.decode(column: "device_id", as: UUID.self), event: .mdmCommandCancelled,
                                         from: deviceStatus, to: deviceStatus, reason: "\(action) by \(connector) \(reason)",
                                         actor: actor)
        }
        try await DeviceHistoryLog.write(history, on: sql, now: now)
        return rows.count
    }

    /// For each of `devices` that Handover put in Lost Mode (a `lost_mode` command sent, or
    /// recorded in a dry run, and not lifted since), writes a `disable_lost_mode` command through
    /// the same connector and records it in the device's history; returns how many.
    package func liftLostMode(for devices: [UUID], actor: String, now: Date) async throws -> Int {
        guard !devices.isEmpty else { return 0 }
        let sql = try sqlDatabase()
        let lost = MDMAction.lostMode.rawValue, lift = MDMAction.disableLostMode.rawValue
        let rows = try await sql.raw("""
            SELECT m.device_id, m.connector, d.status FROM mdm_commands m JOIN devices d ON d.id = m.device_id
            WHERE m.device_id IN (\(SQLList(devices.map { SQLBind($0) }))) AND m.action = \(bind: lost)
              AND m.status IN (\(bind: MDMCommandState.sent.rawValue), \(bind: MDMCommandState.dryRun.rawValue))
              AND NOT EXISTS (SELECT 1 FROM mdm_commands l WHERE l.device_id = m.device_id AND l.action = \(bind: lift) AND l.created_at >= m.created_at)
            """).all()
        var lifted = Set<UUID>()
        for row in rows {
            let device = try row.decode(column: "device_id", as: UUID.self)
            guard lifted.insert(device).inserted else { continue }
            let connector = try row.decode(column: "connector", as: String.self)
            let status = try row.decode(column: "status", as: DeviceStatus.self)
            try await sql.raw("""
                INSERT INTO mdm_commands (id, device_id, connector, action, trigger, status, attempts, next_attempt_at, created_at, version)
                VALUES (\(bind: UUID()), \(bind: device), \(bind: connector), \(bind: lift), \(bind: status.rawValue),
                        \(bind: MDMCommandState.pending.rawValue), 0, \(bind: now), \(bind: now), 0)
                """).run()
            try await DeviceHistoryLog.write([.init(device: device, event: .mdmCommandQueued, from: status, to: status,
                                                    reason: "disable lost mode by \(connector): lifting the Lost Mode Handover put on the device",
                                                    actor: actor)], on: sql, now: now)
        }
        return lifted.count
    }

    /// Whether the device was asked for a remedy (lock, Lost Mode, erase) since `since` (ever,
    /// when nil): reads the first such command.
    package func remedyAsked(of deviceID: UUID, since: Date?) async throws -> Bool {
        var earlier = MDMCommand.query(on: database).filter(\.$deviceID == deviceID).filter(\.$action ~~ MDMAction.allCases.filter(\.isRemedy))
        if let since { earlier = earlier.filter(\.$createdAt >= since) }
        return try await earlier.first() != nil
    }

    /// Inserts a new MDM command.
    package func create(_ command: MDMCommand) async throws {
        try await command.create(on: database)
    }

    /// Takes MDM command `commandID` of device `deviceID` with a no-op write (SQLite's write lock
    /// first; PostgreSQL's row lock); false when the device has no such command (or the database
    /// does not speak SQL).
    package func takeCommand(_ commandID: UUID, of deviceID: UUID) async throws -> Bool {
        guard let sql = database as? any SQLDatabase else { return false }
        return try await !sql.raw("UPDATE mdm_commands SET version = version WHERE id = \(bind: commandID) AND device_id = \(bind: deviceID) RETURNING id")
            .all().isEmpty
    }

    /// Writes an MDM command's changed fields.
    package func save(_ command: MDMCommand) async throws {
        try await command.save(on: database)
    }

    /// The newest `limit` commands sent for a device, newest first.
    package func newestCommands(_ limit: Int, ofDevice device: UUID) async throws -> [MDMCommand] {
        try await MDMCommand.query(on: database).filter(\.$deviceID == device).sort(\.$createdAt, .descending).limit(limit).all()
    }

    // MARK: Listings and search

    /// The devices, oldest first; only those in `status` and at `site` when given.
    package func devices(status: DeviceStatus?, site: SiteName?) async throws -> [Device] {
        var query = Device.query(on: database)
        if let status { query = query.filter(\.$status == status) }
        if let site { query = query.filter(\.$siteKey == site.key) }
        return try await query.sort(\.$createdAt).all()
    }

    /// The devices with these ids, in no particular order.
    package func devices(_ ids: [UUID]) async throws -> [Device] {
        try await Device.query(on: database).filter(\.$id ~~ ids).all()
    }

    /// A device's keys, newest first (the live one and those revoked).
    package func keys(ofDevice device: UUID) async throws -> [APIKey] {
        try await APIKey.query(on: database).filter(\.$deviceID == device).sort(\.$createdAt, .descending).all()
    }

    /// The keys of people and services (every scope but a device's), oldest first.
    package func keysButDevices() async throws -> [APIKey] {
        try await APIKey.query(on: database).filter(\.$scope != APIKeyScope.device.rawValue).sort(\.$createdAt).sort(\.$id).all()
    }

    /// The keys, oldest first; only those of `scope` and of `device` when given.
    package func keys(scope: String?, device: UUID?) async throws -> [APIKey] {
        var query = APIKey.query(on: database)
        if let scope { query = query.filter(\.$scope == scope) }
        if let device { query = query.filter(\.$deviceID == device) }
        return try await query.sort(\.$createdAt).sort(\.$id).all()
    }

    /// One page of the devices `search` matches, sorted by name then id, `limit` from `offset`,
    /// and how many match in all: the count, the page's ids, then their rows.
    package func search(_ search: DeviceSearch, limit: Int, offset: Int, now: Date) async throws -> (devices: [Device], total: Int) {
        let sql = try ServerDatabases.sql(database, code: "storage")
        let condition = Self.condition(of: search, now: now)
        let total = try await sql.raw("SELECT COUNT(*) AS matches FROM devices WHERE \(condition)").first()?
            .decode(column: "matches", as: Int.self) ?? 0
        let ids = try await sql.raw("""
            SELECT id FROM devices WHERE \(condition) ORDER BY name, id LIMIT \(unsafeRaw: String(limit)) OFFSET \(unsafeRaw: String(offset))
            """).all().map { try $0.decode(column: "id", as: UUID.self) }
        let devices = ids.isEmpty ? [] : try await Device.query(on: database).filter(\.$id ~~ ids).sort(\.$name).sort(\.$id).all()
        return (devices, total)
    }

    /// The search's WHERE clause, every value bound.
    private static func condition(of search: DeviceSearch, now: Date) -> SQLQueryString {
        var clause: SQLQueryString = search.sites.condition()
        if !search.text.isEmpty {
            let pattern = "%" + search.text.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            clause = clause + " AND (LOWER(name) LIKE \(bind: pattern) ESCAPE '\\' OR LOWER(COALESCE(serial_number, '')) LIKE \(bind: pattern) ESCAPE '\\')"
        }
        if let status = search.status { clause = clause + " AND status = \(bind: status.rawValue)" }
        if search.filter != .retired, search.status != .retired { clause = clause + " AND status <> \(bind: DeviceStatus.retired.rawValue)" }
        switch search.filter {
        case .all: break
        case .retired: clause = clause + " AND status = \(bind: DeviceStatus.retired.rawValue)"
        case .outOfService: clause = clause + " AND status = \(bind: DeviceStatus.outOfService.rawValue)"
        case .overdue: clause = clause + " AND status = \(bind: DeviceStatus.overdue.rawValue)"
        case .failedLastDay:
            clause = clause + """
                 AND id IN (SELECT device_id FROM logout_runs WHERE status = \(bind: LogoutRunState.failed.rawValue) \
                AND finished_at >= \(bind: now.addingTimeInterval(-86_400)))
                """
        }
        return clause
    }

    // MARK: Overdue devices

    /// A device in service past its lending period, as ``pastLending(settings:now:limit:)``
    /// reads it: since when and how it is checked out (both nil when nobody holds it).
    package struct PastLending: Sendable {
        package var device: UUID
        package var checkedOutAt: Date?
        package var checkedOutBy: String?
    }

    /// The devices in service held (checked out) for longer than their lending period, or held
    /// by nobody and not handed over within it (``CustodySettings/lendingCutoff(site:now:)``),
    /// at most `batch`.
    package func pastLending(settings: CustodySettings, now: Date, limit batch: Int) async throws -> [PastLending] {
        guard let sql = database as? any SQLDatabase else {
            throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.")
        }
        let cutoff = settings.lendingCutoff(site: "d.site_key", now: now)
        let rows = try await sql.raw("""
            SELECT d.id AS id, c.checked_out_at AS checked_out_at, c.checked_out_by AS checked_out_by
            FROM devices d LEFT JOIN custodies c ON c.device_id = d.id AND c.checked_in_at IS NULL
            WHERE d.status = \(bind: DeviceStatus.inService.rawValue) AND (
              (c.id IS NOT NULL AND c.checked_out_at < \(cutoff))
              OR (c.id IS NULL AND (d.last_completed_at < \(cutoff) OR (d.last_completed_at IS NULL AND d.created_at < \(cutoff)))))
            LIMIT \(unsafeRaw: String(batch))
            """).all()
        return try rows.map { row in
            PastLending(device: try row.decode(column: "id", as: UUID.self), checkedOutAt: try row.decode(column: "checked_out_at", as: Date?.self),
                        checkedOutBy: try row.decode(column: "checked_out_by", as: String?.self))
        }
    }

    // MARK: Import

    /// The registered devices that have a serial number.
    package func devicesWithSerialNumber() async throws -> [Device] {
        try await Device.query(on: database).filter(\.$serialNumber != nil).all()
    }

    /// Inserts a new device.
    package func create(_ device: Device) async throws {
        try await device.create(on: database)
    }

    // MARK: Retirement and deletion

    /// Ends the device's open custody, if any, at `now`, saying `end`.
    package func checkIn(device deviceID: UUID, endedWithoutRun end: String, at now: Date) async throws {
        try await sqlDatabase().raw("""
            UPDATE custodies SET checked_in_at = \(bind: now), ended_without_run = \(bind: end)
            WHERE device_id = \(bind: deviceID) AND checked_in_at IS NULL
            """).run()
    }

    /// How many hand-overs (runs) and custody records name the device, in one statement.
    package func namings(of deviceID: UUID) async throws -> (runs: Int, custodies: Int) {
        let named = try await sqlDatabase().raw("""
            SELECT (SELECT COUNT(*) FROM logout_runs WHERE device_id = \(bind: deviceID)) AS runs,
                   (SELECT COUNT(*) FROM custodies WHERE device_id = \(bind: deviceID)) AS custodies
            """).first()
        let runs = try named?.decode(column: "runs", as: Int.self) ?? 0
        let custodies = try named?.decode(column: "custodies", as: Int.self) ?? 0
        return (runs, custodies)
    }

    /// Whether someone is signed in on the device, so that a hand-over would have something to
    /// end on it (``HandOverSignOut/occupied(_:on:)``).
    package func isOccupied(_ deviceID: UUID) async throws -> Bool {
        try await !HandOverSignOut.occupied([deviceID], on: sqlDatabase()).isEmpty
    }

    /// Deletes the device's history, its MDM commands and the device, in that order.
    package func delete(device deviceID: UUID) async throws {
        let sql = try sqlDatabase()
        try await sql.raw("DELETE FROM device_history WHERE device_id = \(bind: deviceID)").run()
        try await sql.raw("DELETE FROM mdm_commands WHERE device_id = \(bind: deviceID)").run()
        try await sql.raw("DELETE FROM devices WHERE id = \(bind: deviceID)").run()
    }
}

// MARK: - Entry points for the other areas' stores, which hold the SQL database already

extension DeviceLifeCycle {
    /// Locks the devices that exist among `ids` and reads their statuses, in one statement
    /// (``lock(_:returning:on:)``).
    package static func lock(_ ids: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: DeviceStatus] {
        let rows = try await lock(ids, returning: "status", on: sql)
        return try Dictionary(rows.map { (try $0.decode(column: "id", as: UUID.self), try $0.decode(column: "status", as: DeviceStatus.self)) }) { first, _ in first }
    }

    /// Locks the devices that exist among `ids` and reads their `id` and `columns` (a column
    /// list of `devices`), in one statement: PostgreSQL locks them in id order (so two
    /// transactions never wait on each other in a cycle), and a locked row cannot change before
    /// the caller's transaction ends; SQLite takes its write lock (a no-op write), so what it
    /// read stays true.
    package static func lock(_ ids: Set<UUID>, returning columns: SQLQueryString, on sql: any SQLDatabase) async throws -> [any SQLRow] {
        guard !ids.isEmpty else { return [] }
        let list = SQLList(ids.map { SQLBind($0) })
        return try await sql.dialect.name == "postgresql"
            ? sql.raw("SELECT id, \(columns) FROM devices WHERE id IN (\(list)) ORDER BY id FOR NO KEY UPDATE").all()
            : sql.raw("UPDATE devices SET status = status WHERE id IN (\(list)) RETURNING id, \(columns)").all()
    }
}

extension DeviceHistoryLog {
    /// Writes `steps` at `now`: one `INSERT` for the history, one for the log.
    package static func write(_ steps: [Step], on sql: any SQLDatabase, now: Date) async throws {
        guard !steps.isEmpty else { return }
        let rows = steps.map { step -> SQLQueryString in
            """
            (\(bind: UUID()), \(bind: step.device), \(bind: step.event.rawValue), \(bind: step.from.rawValue), \
            \(bind: step.to.rawValue), \(bind: step.run), \(bind: step.reason), \(bind: step.note), \(bind: step.actor), \(bind: now))
            """
        }
        try await sql.raw("""
            INSERT INTO device_history (id, device_id, event, from_status, to_status, run_id, reason, note, actor, created_at)
            VALUES \(SQLList(rows))
            """).run()
        try await AuditTrail.append(steps.map { step in
            var detail = ["from": step.from.rawValue, "to": step.to.rawValue]
            detail["reason"] = step.reason
            detail["note"] = step.note
            let actor = step.actor == DeviceLifeCycle.serverActor ? AuditActor.server : AuditActor(kind: "recorded", name: step.actor)
            return AuditEvent(type: "device.\(step.event.rawValue)", at: now, actor: actor, device: step.device, run: step.run, detail: detail)
        }, on: sql, now: now)
        // Shared Signals: CAEP device-compliance-change when a step crosses between compliant
        // and not (most steps do not, and then nothing is read).
        let changes = steps.compactMap { step in compliance(from: step.from, to: step.to).map { (step, $0) } }
        guard !changes.isEmpty else { return }
        try await SharedSignalsOutbox.enqueue(on: sql, now: now) {
            changes.map { step, compliant in
                SecurityEvent.deviceCompliance(device: step.device, compliant: compliant,
                                               reason: step.reason ?? step.note ?? "\(step.from.rawValue) to \(step.to.rawValue)", run: step.run, at: now)
            }
        }
    }
}
