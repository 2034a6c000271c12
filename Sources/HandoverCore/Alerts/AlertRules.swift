import Foundation
import HandoverProtocol

/// When a device's alert is raised and when it is over: a value in, the changes out; the store
/// applies them (``DeviceAlertStore``).
///
/// | cause | raised while | open until |
/// |---|---|---|
/// | overdue | the device is overdue (the overdue pass raises it as it marks the device) | the device is in service again |
/// | not seen | its key is unused for longer than ``AlertSettings/notSeenAfter`` | its key is used |
/// | Lost Mode | the MDM accepted Lost Mode since it left service | it is back in service (Lost Mode lifted) |
///
/// A retired device raises nothing, and its open alerts are over. One open alert per device and cause: while it is open (acknowledged or not) nothing new is
/// raised for the same cause, so a person hears of each episode once.
package enum AlertRules {
    /// What a pass changes.
    package struct Changes: Sendable, Equatable {
        package var raise: [AlertRaise] = []
        /// Open alerts whose cause is over.
        package var clear: [UUID] = []

        package var isEmpty: Bool { raise.isEmpty && clear.isEmpty }
    }

    /// The changes for the devices `observed`, given the alerts still `open`. An open alert of a
    /// device not observed (deleted) is cleared.
    package static func decide(observed: [AlertObservation], open: [OpenAlert], notSeenAfter: TimeInterval?, now: Date) -> Changes {
        var changes = Changes()
        // A retired device left the fleet: nothing is raised for it, and its alerts are over.
        let devices = Dictionary(observed.filter { $0.status != .retired }.map { ($0.device, $0) }) { first, _ in first }
        let openCauses = Set(open.map { OpenKey(device: $0.device, cause: $0.cause) })
        for alert in open {
            guard let device = devices[alert.device], holds(alert.cause, device, notSeenAfter: notSeenAfter, now: now) else {
                changes.clear.append(alert.id)
                continue
            }
        }
        for device in devices.values.sorted(by: { $0.name < $1.name }) {
            for cause in DeviceAlertCause.allCases where !openCauses.contains(OpenKey(device: device.device, cause: cause)) {
                guard let detail = raises(cause, device, notSeenAfter: notSeenAfter, now: now) else { continue }
                changes.raise.append(AlertRaise(device: device.device, cause: cause, deviceName: device.name, site: device.site,
                                                 status: device.status, detail: detail))
            }
        }
        return changes
    }

    /// Whether an open alert of `cause` still holds for `device`.
    package static func holds(_ cause: DeviceAlertCause, _ device: AlertObservation, notSeenAfter: TimeInterval?, now: Date) -> Bool {
        guard device.status != .retired else { return false }
        return switch cause {
        case .overdue: device.status != .inService
        case .notSeen: isUnseen(device, notSeenAfter: notSeenAfter, now: now)
        case .lostMode: device.inLostMode && device.status != .inService
        }
    }

    /// Why `cause` is raised for `device` now, or nil when it is not.
    package static func raises(_ cause: DeviceAlertCause, _ device: AlertObservation, notSeenAfter: TimeInterval?, now: Date) -> String? {
        switch cause {
        case .overdue:
            return device.status == .overdue ? "not handed over by the end of its lending period" : nil
        case .notSeen:
            guard let notSeenAfter, isUnseen(device, notSeenAfter: notSeenAfter, now: now) else { return nil }
            return "not seen since \(AlertText.time(device.lastSeen)) (alerted after \(OverdueDevices.duration(notSeenAfter)))"
        case .lostMode:
            return holds(.lostMode, device, notSeenAfter: notSeenAfter, now: now) ? "the MDM put it in Lost Mode after a failed hand-over" : nil
        }
    }

    private static func isUnseen(_ device: AlertObservation, notSeenAfter: TimeInterval?, now: Date) -> Bool {
        guard let notSeenAfter else { return false }
        return now.timeIntervalSince(device.lastSeen) > notSeenAfter
    }

    private struct OpenKey: Hashable {
        var device: UUID
        var cause: DeviceAlertCause
    }
}
