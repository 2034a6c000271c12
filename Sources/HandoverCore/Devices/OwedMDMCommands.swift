import Foundation
import HandoverProtocol

/// The MDM commands a device still owes (pending, or an erase awaiting its confirmation), and
/// their end when the device goes back in service: a lock, Lost Mode or erase is for a device
/// out of service, never for one that was judged safe to hand on again. Back in service also
/// lifts the Lost Mode that Handover put on the device (``liftLostMode(for:actor:on:now:)``).
/// The statements are ``DeviceStore``'s.
package enum OwedMDMCommands {
    /// What the history and the command say when one is cancelled.
    package static let backInServiceReason = "not sent: the device went back in service first"

    /// Cancels every remedy still owed for `devices` (every command, lifting Lost Mode included,
    /// with `remediesOnly` false), in the caller's transaction, and records each in its device's
    /// history with `reason` (one statement each); returns how many.
    @discardableResult
    package static func cancel(for devices: [UUID], deviceStatus: DeviceStatus, actor: String, reason: String = backInServiceReason,
                               remediesOnly: Bool = true, on db: DatabaseHandle, now: Date) async throws -> Int {
        try await DeviceStore(db).cancelOwedCommands(for: devices, deviceStatus: deviceStatus, actor: actor, reason: reason,
                                                     remediesOnly: remediesOnly, now: now)
    }

    /// For each of `devices` that Handover put in Lost Mode (a `lost_mode` command sent, or
    /// recorded in a dry run, and not lifted since), writes a `disable_lost_mode` command through
    /// the same connector, in the caller's transaction, and records it in the device's history;
    /// returns how many.
    @discardableResult
    package static func liftLostMode(for devices: [UUID], actor: String, on db: DatabaseHandle, now: Date) async throws -> Int {
        try await DeviceStore(db).liftLostMode(for: devices, actor: actor, now: now)
    }
}
