import Foundation
import HandoverProtocol
import HandoverSchema

/// What the fleet asks its MDM to do when a device goes out of service or overdue
/// (`HANDOVER_MDM_*`): which connector, which action, and whether only to record what would be
/// sent. Erase waits for a person to confirm it on the dashboard.
package struct MDMPolicy: Sendable, Equatable {
    /// `jamf`, `intune` or `webhook`.
    package var connector: String
    package var action: MDMAction
    package var dryRun: Bool

    package init(connector: String, action: MDMAction, dryRun: Bool) {
        self.connector = connector
        self.action = action
        self.dryRun = dryRun
    }

    /// Writes the command a device now owes, in the caller's transaction, and records it in the
    /// device's history; nothing when one was already asked since the device last completed a
    /// hand-over (an overdue device whose run then fails is asked once). The statements are
    /// ``DeviceStore``'s.
    func enqueue(for device: Device, trigger: DeviceStatus, on db: DatabaseHandle, now: Date) async throws {
        let id = try device.storedID
        let store = DeviceStore(db)
        guard try await !store.remedyAsked(of: id, since: device.lastCompletedAt) else { return }
        let command = MDMCommand()
        command.deviceID = id
        command.connector = connector
        command.action = action
        command.trigger = trigger
        command.status = action.needsConfirmation ? .awaitingConfirmation : .pending  // a dry run is recorded when it is due
        command.attempts = 0
        command.nextAttemptAt = now
        command.createdAt = now
        command.version = 0
        try await store.create(command)
        let reason = "\(action.rawValue.replacingOccurrences(of: "_", with: " ")) by \(connector)"
            + (command.status == .awaitingConfirmation ? ", waiting for a person to confirm the erase on the dashboard" : "")
            + (dryRun ? " (dry run: recorded, not sent)" : "")
        try await store.writeHistory([.init(device: id, event: .mdmCommandQueued, from: trigger, to: trigger, reason: reason)], now: now)
    }
}
