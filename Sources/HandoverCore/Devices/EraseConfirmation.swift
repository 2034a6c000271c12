import Foundation
import HandoverProtocol
import HandoverSchema

/// An erase waits for a person: on the dashboard, they type the device's name, and only then is
/// the command sent. The confirmation, and who gave it, go into the device's history. The
/// statements are ``DeviceStore``'s.
package enum EraseConfirmation {
    /// Releases an erase that waits for confirmation. Throws ``DomainError``: 404 for an unknown
    /// command, 422 naming `confirm` when the typed name is not the device's, 409 when the
    /// command does not wait for a confirmation.
    package static func confirm(_ commandID: UUID, of deviceID: UUID, typedName: String, actor: String, on database: DatabaseHandle, now: Date) async throws {
        try await database.inTransaction { db in
            let store = DeviceStore(db)
            // Write first (SQLite), and take the row (PostgreSQL).
            guard try await store.takeCommand(commandID, of: deviceID),
                  let command = try await MDMCommand.stored(commandID, on: db), let device = try await Device.stored(deviceID, on: db) else {
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
            try await store.save(command)
            try await store.writeHistory([.init(
                device: deviceID, event: .eraseConfirmed, from: device.status, to: device.status,
                reason: "\(command.action == .returnToService ? "erase with Return to Service" : "erase") by \(command.connector) confirmed",
                actor: actor)], now: now)
        }
    }
}
