import Foundation
import HandoverProtocol

/// The one writer of a device's history: each step is a `device_history` row and an audit log
/// entry (`device.<event>`), written together in the caller's transaction by
/// ``write(_:on:now:)`` (its statements are ``DeviceStore``'s, in `DeviceStore.swift`; a service
/// writes through ``DeviceStore/writeHistory(_:now:)``).
package enum DeviceHistoryLog {
    /// One step of one device.
    package struct Step: Sendable {
        package var device: UUID
        package var event: DeviceHistoryEvent
        package var from: DeviceStatus
        package var to: DeviceStatus
        package var run: UUID?
        package var reason: String?
        package var note: String?
        package var actor: String

        package init(device: UUID, event: DeviceHistoryEvent, from: DeviceStatus, to: DeviceStatus, run: UUID? = nil,
                     reason: String? = nil, note: String? = nil, actor: String = DeviceLifeCycle.serverActor) {
            self.device = device
            self.event = event
            self.from = from
            self.to = to
            self.run = run
            self.reason = reason
            self.note = note
            self.actor = String(actor.prefix(100))
        }
    }

    /// Whether a step makes a device compliant (true) or not (false), or leaves that as it was
    /// (nil). Out of service and overdue are not compliant; in service is; a hand-over in
    /// progress is neither, so only its end says which way it went.
    static func compliance(from: DeviceStatus, to: DeviceStatus) -> Bool? {
        let failing: Set<DeviceStatus> = [.outOfService, .overdue]
        if failing.contains(to), !failing.contains(from) { return false }
        if to == .inService, failing.contains(from) { return true }
        return nil
    }
}
