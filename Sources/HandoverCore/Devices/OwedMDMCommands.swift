import Foundation
import HandoverProtocol
import SQLKit

/// The MDM commands a device still owes (pending, or an erase awaiting its confirmation), and
/// their end when the device goes back in service: a lock, Lost Mode or erase is for a device
/// out of service, never for one that was judged safe to hand on again. Back in service also
/// lifts the Lost Mode that Handover put on the device (``liftLostMode(for:actor:on:now:)``).
package enum OwedMDMCommands {
    /// What the history and the command say when one is cancelled.
    package static let backInServiceReason = "not sent: the device went back in service first"

    /// Cancels every remedy still owed for `devices` (every command, lifting Lost Mode included,
    /// with `remediesOnly` false), in the caller's transaction, and records each in its device's
    /// history with `reason` (one statement each); returns how many.
    @discardableResult
    package static func cancel(for devices: [UUID], deviceStatus: DeviceStatus, actor: String, reason: String = backInServiceReason,
                               remediesOnly: Bool = true, on sql: any SQLDatabase, now: Date) async throws -> Int {
        guard !devices.isEmpty else { return 0 }
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
    /// the same connector, in the caller's transaction, and records it in the device's history;
    /// returns how many.
    @discardableResult
    package static func liftLostMode(for devices: [UUID], actor: String, on sql: any SQLDatabase, now: Date) async throws -> Int {
        guard !devices.isEmpty else { return 0 }
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
}
