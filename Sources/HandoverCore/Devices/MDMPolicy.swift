import FluentKit
import HandoverSchema
import SQLKit
import Foundation
import HandoverProtocol

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
    /// hand-over (an overdue device whose run then fails is asked once).
    func enqueue(for device: Device, trigger: DeviceStatus, on db: Database, now: Date) async throws {
        let id = try device.requireID()
        var earlier = MDMCommand.query(on: db).filter(\.$deviceID == id).filter(\.$action ~~ MDMAction.allCases.filter(\.isRemedy))
        if let since = device.lastCompletedAt { earlier = earlier.filter(\.$createdAt >= since) }
        guard try await earlier.first() == nil else { return }
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
        try await command.create(on: db)
        guard let sql = db as? any SQLDatabase else { return }
        let reason = "\(action.rawValue.replacingOccurrences(of: "_", with: " ")) by \(connector)"
            + (command.status == .awaitingConfirmation ? ", waiting for a person to confirm the erase on the dashboard" : "")
            + (dryRun ? " (dry run: recorded, not sent)" : "")
        try await DeviceHistoryLog.write([.init(device: id, event: .mdmCommandQueued, from: trigger, to: trigger, reason: reason)],
                                         on: sql, now: now)
    }
}
