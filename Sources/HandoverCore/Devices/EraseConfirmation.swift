import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// An erase waits for a person: on the dashboard, they type the device's name, and only then is
/// the command sent. The confirmation, and who gave it, go into the device's history.
package enum EraseConfirmation {
    /// Releases an erase that waits for confirmation. Throws ``DomainError``: 404 for an unknown
    /// command, 422 naming `confirm` when the typed name is not the device's, 409 when the
    /// command does not wait for a confirmation.
    package static func confirm(_ commandID: UUID, of deviceID: UUID, typedName: String, actor: String, on database: Database, now: Date) async throws {
        try await database.transaction { db in
            guard let sql = db as? any SQLDatabase else { return }
            // Write first (SQLite), and take the row (PostgreSQL).
            guard try await !sql.raw("UPDATE mdm_commands SET version = version WHERE id = \(bind: commandID) AND device_id = \(bind: deviceID) RETURNING id")
                .all().isEmpty,
                  let command = try await MDMCommand.find(commandID, on: db), let device = try await Device.find(deviceID, on: db) else {
                throw DomainError.notFound("MDM command")
            }
            guard command.status == .awaitingConfirmation else {
                throw DomainError(.conflict, code: "not_awaiting_confirmation",
                                  reason: "This command is \(command.status.rawValue.replacingOccurrences(of: "_", with: " ")); only an erase that waits for a confirmation can be confirmed.")
            }
            // Checked now, not when the page was drawn: a device back in service is erased by no one.
            guard device.status != .inService else {
                throw DomainError(.conflict, code: "device_in_service",
                                  reason: "\(device.name) is back in service; an erase is only for a device out of service or overdue.")
            }
            guard typedName.trimmingCharacters(in: .whitespaces) == device.name else {
                throw DomainError.invalid("confirm", "type the device's name, \(device.name), exactly, to erase it.")
            }
            command.status = .pending
            command.confirmedBy = String(actor.prefix(200))
            command.nextAttemptAt = now
            command.version += 1
            try await command.save(on: db)
            guard let sql = db as? any SQLDatabase else { return }
            try await DeviceHistoryLog.write([.init(
                device: deviceID, event: .eraseConfirmed, from: device.status, to: device.status,
                reason: "\(command.action == .returnToService ? "erase with Return to Service" : "erase") by \(command.connector) confirmed",
                actor: actor)], on: sql, now: now)
        }
    }
}
