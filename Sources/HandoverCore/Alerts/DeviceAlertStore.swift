import FluentKit
import Foundation
import HandoverProtocol
import SQLKit

/// The alerts' SQL: what the rules observe, and the changes they decide, written with the
/// device's history (an audit log entry each) and the `device.alert` webhook in one transaction;
/// and the alerts' mail, leased and recorded through their outbox (``DeviceAlerts/outbox``).
package enum DeviceAlertStore {
    /// The devices the rules need to see: those that may raise an alert (overdue or out of
    /// service, or unseen since `unseenBefore`) and those with an alert open.
    package static func observe(unseenBefore: Date?, on db: any Database) async throws -> [AlertObservation] {
        let sql = try sqlDatabase(db)
        let attention = SQLList([DeviceStatus.overdue, .outOfService].map { SQLBind($0.rawValue) })
        let unseen: SQLQueryString = unseenBefore.map { "OR COALESCE(MAX(k.last_used_at), d.created_at) < \(bind: $0)" } ?? ""
        let rows = try await sql.raw("""
            SELECT d.id, d.name, d.site, d.status, COALESCE(MAX(k.last_used_at), d.created_at) AS last_seen,
              CASE WHEN EXISTS (SELECT 1 FROM mdm_commands c WHERE c.device_id = d.id AND c.action = \(bind: MDMAction.lostMode.rawValue)
                AND c.status = \(bind: MDMCommandState.sent.rawValue) AND c.created_at >= COALESCE(d.status_changed_at, d.created_at))
              THEN 1 ELSE 0 END AS lost
            FROM devices d LEFT JOIN api_keys k ON k.device_id = d.id
            GROUP BY d.id, d.name, d.site, d.status, d.created_at, d.status_changed_at
            HAVING (d.status IN (\(attention)) \(unseen) AND d.status <> \(bind: DeviceStatus.retired.rawValue))
              OR d.id IN (SELECT device_id FROM device_alerts WHERE cleared_at IS NULL)
            """).all()
        return try rows.map { row in
            AlertObservation(device: try row.decode(column: "id", as: UUID.self), name: try row.decode(column: "name", as: String.self),
                             site: try row.decode(column: "site", as: String?.self), status: try row.decode(column: "status", as: DeviceStatus.self),
                             lastSeen: try row.decode(column: "last_seen", as: Date.self), inLostMode: try row.decode(column: "lost", as: Int.self) != 0)
        }
    }

    /// Every alert still open.
    package static func open(on db: any Database) async throws -> [OpenAlert] {
        try await sqlDatabase(db).raw("SELECT id, device_id, cause FROM device_alerts WHERE cleared_at IS NULL").all().compactMap { row in
            guard let cause = DeviceAlertCause(rawValue: try row.decode(column: "cause", as: String.self)) else { return nil }
            return OpenAlert(id: try row.decode(column: "id", as: UUID.self), device: try row.decode(column: "device_id", as: UUID.self), cause: cause)
        }
    }

    /// Applies `changes` at `now`: clears, then raises; returns the alerts raised (one already
    /// open for the same device and cause, raised by another instance, is left as it is).
    @discardableResult
    package static func apply(_ changes: AlertRules.Changes, publicURL: URL, on db: any Database, now: Date) async throws -> [DeviceAlert] {
        let sql = try sqlDatabase(db)
        if !changes.clear.isEmpty {
            try await sql.raw("""
                UPDATE device_alerts SET cleared_at = \(bind: now) WHERE id IN (\(SQLList(changes.clear.map { SQLBind($0) }))) AND cleared_at IS NULL
                """).run()
        }
        return try await raise(changes.raise, publicURL: publicURL, on: db, now: now)
    }

    /// Raises `raises` at `now`, each with its history step and `device.alert` webhook; one
    /// already open for its device and cause is skipped. Returns those raised.
    @discardableResult
    package static func raise(_ raises: [AlertRaise], publicURL: URL, on db: any Database, now: Date) async throws -> [DeviceAlert] {
        guard !raises.isEmpty else { return [] }
        let sql = try sqlDatabase(db)
        let rows = raises.map { raise -> SQLQueryString in
            """
            (\(bind: UUID()), \(bind: raise.device), \(bind: raise.cause.rawValue), \(bind: raise.deviceName), \(bind: raise.site), \
            \(bind: raise.site.map(SiteName.key(of:))), \(bind: String(raise.detail.prefix(500))), \(bind: now), 'pending', 0, \(bind: now), 0)
            """
        }
        let inserted = try await sql.raw("""
            INSERT INTO device_alerts (id, device_id, cause, device_name, site, site_key, detail, raised_at, status, attempts, next_attempt_at, version)
            VALUES \(SQLList(rows)) ON CONFLICT DO NOTHING RETURNING id, device_id, cause
            """).all()
        var raised: [DeviceAlert] = []
        for row in inserted {
            let device = try row.decode(column: "device_id", as: UUID.self), cause = try row.decode(column: "cause", as: String.self)
            guard let raise = raises.first(where: { $0.device == device && $0.cause.rawValue == cause }) else { continue }
            raised.append(DeviceAlert(id: try row.decode(column: "id", as: UUID.self), device: device, cause: raise.cause, deviceName: raise.deviceName,
                                      site: raise.site, detail: raise.detail, raisedAt: now))
        }
        guard !raised.isEmpty else { return [] }
        let statuses = Dictionary(raises.map { ($0.device, $0.status) }) { first, _ in first }
        try await DeviceHistoryLog.write(raised.map { alert in
            let status = statuses[alert.device] ?? .inService
            return DeviceHistoryLog.Step(device: alert.device, event: .alertRaised, from: status, to: status,
                                         reason: "\(alert.cause.words): \(alert.detail)")
        }, on: sql, now: now)
        try await WebhookOutbox.enqueue(raised.map { alert in
            WebhookOutbox.Event("device.alert", run: nil, deviceID: alert.device, reason: "\(alert.cause.words): \(alert.detail)",
                                alert: DeviceAlertEvent(id: alert.id, cause: alert.cause, deviceName: alert.deviceName, site: alert.site,
                                                        detail: alert.detail, raisedAt: now, page: AlertText.page(alert, publicURL: publicURL)),
                                at: now)
        }, on: db)
        return raised
    }

    /// What acknowledging an alert came to.
    package enum Acknowledgement: Equatable, Sendable {
        case acknowledged(DeviceAlert)
        /// A person had acknowledged it already: who, and when.
        case already(DeviceAlert)
        /// No such alert, or not at a site the person may act at.
        case notFound
    }

    /// Records that `actor` acknowledged alert `id` at `now`, in the device's history; `may`
    /// says whether they may act at the alert's site (as stored).
    package static func acknowledge(_ id: UUID, by actor: String, may: (String?) -> Bool, on db: any Database, now: Date) async throws -> Acknowledgement {
        let sql = try sqlDatabase(db)
        guard let alert = try await find(id, on: sql), may(alert.site) else { return .notFound }
        guard alert.acknowledgedAt == nil else { return .already(alert) }
        guard try await sql.raw("""
            UPDATE device_alerts SET acknowledged_at = \(bind: now), acknowledged_by = \(bind: String(actor.prefix(100)))
            WHERE id = \(bind: id) AND acknowledged_at IS NULL RETURNING id
            """).first() != nil else {
            return .already(try await find(id, on: sql) ?? alert)
        }
        let status = try await sql.raw("SELECT status FROM devices WHERE id = \(bind: alert.device)").first()?.decode(column: "status", as: DeviceStatus.self)
        if let status {
            try await DeviceHistoryLog.write([DeviceHistoryLog.Step(device: alert.device, event: .alertAcknowledged, from: status, to: status,
                                                                   reason: "\(alert.cause.words): \(alert.detail)", actor: actor)], on: sql, now: now)
        }
        var done = alert
        done.acknowledgedAt = now
        done.acknowledgedBy = actor
        return .acknowledged(done)
    }

    /// ``acknowledge(_:by:may:on:now:)`` in a transaction of its own, its audit log entries
    /// written as one batch.
    package static func acknowledge(_ id: UUID, by actor: String, may: @escaping @Sendable (String?) -> Bool, in databases: ServerDatabases,
                                    now: Date) async throws -> Acknowledgement {
        try await databases.primary.inTransaction { db in
            try await AuditTrail.batch(on: db, now: now) {
                try await acknowledge(id, by: actor, may: may, on: db, now: now)
            }
        }
    }

    /// One alert.
    package static func find(_ id: UUID, on sql: any SQLDatabase) async throws -> DeviceAlert? {
        try await sql.raw("SELECT \(columns) FROM device_alerts WHERE id = \(bind: id)").first().map(alert(from:))
    }

    /// The alerts of the devices `sites` shows: open ones first (unacknowledged first), then the
    /// latest cleared, newest first; at most `limit`. `device` narrows them to one device.
    package static func list(visibleTo sites: SiteFilter, device: UUID? = nil, limit: Int = 100, on db: any Database) async throws -> [DeviceAlert] {
        let sql = try sqlDatabase(db)
        let narrowed: SQLQueryString = device.map { "AND device_id = \(bind: $0)" } ?? ""
        return try await sql.raw("""
            SELECT \(columns) FROM device_alerts WHERE \(sites.condition("site_key")) \(narrowed)
            ORDER BY CASE WHEN cleared_at IS NULL THEN 0 ELSE 1 END, CASE WHEN acknowledged_at IS NULL THEN 0 ELSE 1 END, raised_at DESC
            LIMIT \(unsafeRaw: String(max(1, limit)))
            """).all().map(alert(from:))
    }

    // MARK: Mail

    /// An alert whose mail is due, as ``dueMail(at:limit:on:)`` reads it: its row's version, and
    /// the contacts mailed already.
    package struct DueMail: Sendable {
        package var alert: DeviceAlert
        package var version: Int
        package var alreadyMailed: Set<String>
    }

    /// The alerts whose mail is pending and due at `now`, the earliest due first; at most `limit`.
    package static func dueMail(at now: Date, limit: Int, on db: any Database) async throws -> [DueMail] {
        let sql = try sqlDatabase(db)
        let rows = try await sql.raw("""
            SELECT \(DeviceAlertStore.columns), version, mailed_to FROM device_alerts
            WHERE status = \(bind: DeviceAlerts.MailStatus.pending.rawValue) AND next_attempt_at <= \(bind: now)
            ORDER BY next_attempt_at LIMIT \(unsafeRaw: String(limit))
            """).all()
        return try rows.map { row in
            let alert = try DeviceAlertStore.alert(from: row)
            let version = try row.decode(column: "version", as: Int.self)
            let mailed = Set((try row.decode(column: "mailed_to", as: String?.self) ?? "").split(separator: " ").map(String.init))
            return DueMail(alert: alert, version: version, alreadyMailed: mailed)
        }
    }

    /// Leases alert `id`'s mail at `version` and counts its attempt (``DeliveryOutbox/lease(_:version:at:sql:setting:)``).
    package static func leaseMail(_ id: UUID, version: Int, at now: Date, on db: any Database) async throws -> DeliveryOutbox.Leased {
        try await DeviceAlerts.outbox.lease(id, version: version, at: now, sql: sqlDatabase(db))
    }

    /// Records attempt `attempt` of alert `id`'s mail: its status, the failure, when it is due
    /// again and, when given, the contacts mailed so far (`mailed_to`).
    package static func recordMail(_ id: UUID, attempt: Int, status: DeviceAlerts.MailStatus, failure: String?, nextAttemptAt: Date,
                                   mailedTo: String? = nil, on db: any Database) async throws {
        try await DeviceAlerts.outbox.record(id, attempt: attempt, status: status.rawValue, statusCode: nil, failure: failure,
                                             nextAttemptAt: nextAttemptAt, sql: sqlDatabase(db),
                                             setting: mailedTo.map { [.init("mailed_to", $0)] } ?? [])
    }

    /// Writes the contacts alert `id` was mailed to (`mailed_to`), at once after each.
    package static func recordMailed(_ mailedTo: String, of id: UUID, on db: any Database) async throws {
        try await sqlDatabase(db).raw("UPDATE device_alerts SET mailed_to = \(bind: mailedTo) WHERE id = \(bind: id)").run()
    }

    package static func sqlDatabase(_ db: any Database) throws -> any SQLDatabase {
        guard let sql = db as? any SQLDatabase else {
            throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.")
        }
        return sql
    }

    static let columns: SQLQueryString = "id, device_id, cause, device_name, site, detail, raised_at, cleared_at, acknowledged_at, acknowledged_by"

    static func alert(from row: any SQLRow) throws -> DeviceAlert {
        let cause = try row.decode(column: "cause", as: String.self)
        return DeviceAlert(id: try row.decode(column: "id", as: UUID.self), device: try row.decode(column: "device_id", as: UUID.self),
                           cause: DeviceAlertCause(rawValue: cause) ?? .overdue, deviceName: try row.decode(column: "device_name", as: String.self),
                           site: try row.decode(column: "site", as: String?.self), detail: try row.decode(column: "detail", as: String.self),
                           raisedAt: try row.decode(column: "raised_at", as: Date.self), clearedAt: try row.decode(column: "cleared_at", as: Date?.self),
                           acknowledgedAt: try row.decode(column: "acknowledged_at", as: Date?.self),
                           acknowledgedBy: try row.decode(column: "acknowledged_by", as: String?.self))
    }
}
