import Foundation
import HandoverProtocol
import SQLKit

/// The MDM commands a device still owes (pending, or an erase awaiting its confirmation), and
/// their end when the device goes back in service: a lock, Lost Mode or erase is for a device
/// out of service, never for one that was judged safe to hand on again.
package enum OwedMDMCommands {
    /// What the history and the command say when one is cancelled.
    package static let backInServiceReason = "not sent: the device went back in service first"

    /// Cancels every command still owed for `devices`, in the caller's transaction, and records
    /// each in its device's history (one statement each); returns how many.
    @discardableResult
    package static func cancel(for devices: [UUID], deviceStatus: DeviceStatus, actor: String, on sql: any SQLDatabase,
                               now: Date) async throws -> Int {
        guard !devices.isEmpty else { return 0 }
        let owed = MDMCommandState.allCases.filter(\.isOwed).map { SQLBind($0.rawValue) }
        let rows = try await sql.raw("""
            UPDATE mdm_commands SET status = \(bind: MDMCommandState.cancelled.rawValue), last_error = \(bind: backInServiceReason),
            in_flight_since = NULL, version = version + 1
            WHERE device_id IN (\(SQLList(devices.map { SQLBind($0) }))) AND status IN (\(SQLList(owed)))
            RETURNING device_id, action, connector
            """).all()
        guard !rows.isEmpty else { return 0 }
        let history = try rows.map { row -> SQLQueryString in
            let action = try row.decode(column: "action", as: MDMAction.self).rawValue.replacingOccurrences(of: "_", with: " ")
            let connector = try row.decode(column: "connector", as: String.self)
            return """
                (\(bind: UUID()), \(bind: try row.decode(column: "device_id", as: UUID.self)), \
                \(bind: DeviceHistoryEvent.mdmCommandCancelled.rawValue), \(bind: deviceStatus.rawValue), \(bind: deviceStatus.rawValue), \
                \(bind: "\(action) by \(connector) \(backInServiceReason)"), \(bind: String(actor.prefix(100))), \(bind: now))
                """
        }
        try await sql.raw("""
            INSERT INTO device_history (id, device_id, event, from_status, to_status, reason, actor, created_at)
            VALUES \(SQLList(history))
            """).run()
        return rows.count
    }
}
