import FluentKit
import Foundation
import HandoverProtocol
import SQLKit

/// Applies ``HandoverProtocol/DeviceStatus/on(_:)`` to stored devices: saves the new status with
/// its reason, appends the step to the device's history, and writes the webhook event a change
/// owes, all in the caller's transaction.
package enum DeviceLifeCycle {
    /// Who acted, as the history records it, when the server decided by itself.
    package static let serverActor = "server"

    /// Applies `event` to the device; returns the state machine's decision (refusals change
    /// nothing and are not recorded).
    ///
    /// On SQLite the caller's transaction must already have written (a read first and a write
    /// later fail as busy when another writer came between).
    @discardableResult
    /// With an `mdm` policy, a device that goes out of service or overdue owes the MDM a command,
    /// written here too.
    package static func apply(_ event: DeviceStatus.Event, to deviceID: UUID, run: UUID? = nil, reason: String? = nil,
                              actor: String = serverActor, mdm: MDMPolicy? = nil, on db: Database, now: Date) async throws -> DeviceStatus.Transition {
        // Lock the row before reading it (PostgreSQL), so the decision is made on its latest status.
        guard let sql = db as? any SQLDatabase,
              let row = try await sql.raw("UPDATE devices SET status = status WHERE id = \(bind: deviceID) RETURNING status").first()
        else { throw DomainError.notFound("device") }
        let from = try row.decode(column: "status", as: DeviceStatus.self)
        let transition = from.on(event)
        guard case .move(let to) = transition else { return transition }
        var note: String?
        if case .backInService(let text) = event { note = text.trimmingCharacters(in: .whitespacesAndNewlines) }
        var changes: [SQLQueryString] = ["status = \(bind: to.rawValue)"]
        if to != from {
            changes.append("status_changed_at = \(bind: now)")
            changes.append("status_reason = \(bind: note ?? reason)")
        }
        // A completed hand-over, or a device back in service: its overdue clock starts again.
        if (event == .runCompleted && from != .outOfService) || note != nil {
            changes.append("last_completed_at = \(bind: now)")
        }
        try await sql.raw("UPDATE devices SET \(SQLList(changes)) WHERE id = \(bind: deviceID)").run()
        try await sql.raw("""
            INSERT INTO device_history (id, device_id, event, from_status, to_status, run_id, reason, note, actor, created_at)
            VALUES (\(bind: UUID()), \(bind: deviceID), \(bind: event.name.rawValue), \(bind: from.rawValue), \(bind: to.rawValue),
            \(bind: run), \(bind: reason), \(bind: note), \(bind: String(actor.prefix(100))), \(bind: now))
            """).run()

        if to != from, to.needsAttention, let mdm, let device = try await Device.find(deviceID, on: db) {
            try await mdm.enqueue(for: device, trigger: to, on: db, now: now)
        }
        if to != from {
            switch to {
            case .inService where from.needsAttention:
                try await WebhookOutbox.enqueue("device.back_in_service", run: nil, deviceID: deviceID, reason: note, on: db, now: now)
            case .overdue:
                try await WebhookOutbox.enqueue("device.overdue", run: nil, deviceID: deviceID, reason: reason, on: db, now: now)
            default:
                break
            }
        }
        return transition
    }

    /// Moves the devices of runs that just finished (in service again, or out of service with the
    /// apps that stayed signed in), in device id order, as the last writes of the caller's
    /// transaction: holding a device's row, it never waits for a run's.
    package static func moveDevices(after finished: [FinishedRun], mdm: MDMPolicy? = nil, on db: Database, now: Date) async throws {
        for run in finished.sorted(by: { ($0.device.uuidString, $0.run.uuidString) < ($1.device.uuidString, $1.run.uuidString) }) {
            let event: DeviceStatus.Event = run.state == .completed ? .runCompleted : .runFailed
            try await apply(event, to: run.device, run: run.run, reason: run.reason, mdm: mdm, on: db, now: now)
        }
    }

    /// Puts a device that is out of service or overdue back in service: an admin's decision,
    /// with a note saying why that is safe. Throws ``DomainError``: 404 for an unknown device,
    /// 422 naming `note` when it is empty or too long, 409 `not_out_of_service` otherwise.
    package static func returnToService(_ deviceID: UUID, note: String, actor: String, on database: Database, now: Date) async throws -> Device {
        let trimmed = note.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw DomainError(.invalidField, code: DeviceStatus.Refusal.noteRequired.rawValue,
                              reason: "note: say why the device may be handed on again (what was checked, who decided); it is kept in the device's history.",
                              field: "note")
        }
        guard trimmed.count <= DeviceStatus.noteLimit else {
            throw DomainError.invalid("note", "\(trimmed.count) characters; at most \(DeviceStatus.noteLimit).")
        }
        guard !trimmed.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }) else {
            throw DomainError.invalid("note", "control characters are not accepted (line breaks and tabs are).")
        }
        return try await database.transaction { db in
            // `apply` writes first: it takes the row (and, on SQLite, the database) before reading.
            let transition = try await apply(.backInService(note: trimmed), to: deviceID, actor: actor, on: db, now: now)
            if case .refuse(let refusal) = transition {
                let status = try await Device.find(deviceID, on: db)?.status.rawValue ?? "unknown"
                throw DomainError(.conflict, code: refusal.rawValue,
                                  reason: "The device is \(status.replacingOccurrences(of: "_", with: " ")); only a device out of service or overdue goes back in service.")
            }
            guard let device = try await Device.find(deviceID, on: db) else { throw DomainError.notFound("device") }
            return device
        }
    }

    /// A device's history, newest first.
    package static func history(of deviceID: UUID, limit: Int = 100, on database: Database) async throws -> [DeviceHistoryEntry] {
        try await DeviceHistoryEntry.query(on: database).filter(\.$deviceID == deviceID)
            .sort(\.$createdAt, .descending).limit(limit).all()
    }
}
