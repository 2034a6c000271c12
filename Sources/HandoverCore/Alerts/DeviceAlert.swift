import Foundation
import HandoverProtocol

/// Why a device needs a person: the alerts a site's contacts hear of, by email and webhook.
public enum DeviceAlertCause: String, Sendable, Hashable, Codable, CaseIterable {
    /// It was not handed over by the end of its lending period.
    case overdue = "overdue"
    /// Its key has not been used for longer than ``AlertSettings/notSeenAfter``.
    case notSeen = "not_seen"
    /// The fleet's MDM put it in Lost Mode, after a hand-over that failed.
    case lostMode = "lost_mode"

    /// How a page, a mail's subject and the report say it.
    public var words: String {
        switch self {
        case .overdue: "Overdue"
        case .notSeen: "Not seen"
        case .lostMode: "In Lost Mode"
        }
    }
}

/// One alert: raised once per device and cause, open until what caused it is over (then
/// cleared), acknowledged by a person from the dashboard in between.
package struct DeviceAlert: Sendable, Equatable {
    package var id: UUID
    package var device: UUID
    package var cause: DeviceAlertCause
    package var deviceName: String
    /// The device's site, as written.
    package var site: String?
    /// Why, in words: since when, under which period.
    package var detail: String
    package var raisedAt: Date
    package var clearedAt: Date?
    package var acknowledgedAt: Date?
    /// Who acknowledged it, as the history names actors.
    package var acknowledgedBy: String?

    package init(id: UUID, device: UUID, cause: DeviceAlertCause, deviceName: String, site: String? = nil, detail: String, raisedAt: Date,
                 clearedAt: Date? = nil, acknowledgedAt: Date? = nil, acknowledgedBy: String? = nil) {
        self.id = id
        self.device = device
        self.cause = cause
        self.deviceName = deviceName
        self.site = site
        self.detail = detail
        self.raisedAt = raisedAt
        self.clearedAt = clearedAt
        self.acknowledgedAt = acknowledgedAt
        self.acknowledgedBy = acknowledgedBy
    }
}

/// What the alert pass sees of one device: the inputs of ``AlertRules``.
package struct AlertObservation: Sendable, Equatable {
    package var device: UUID
    package var name: String
    package var site: String?
    package var status: DeviceStatus
    /// When its key was last used; never used: when it was registered.
    package var lastSeen: Date
    /// Whether the MDM accepted a Lost Mode command sent since it left service.
    package var inLostMode: Bool

    package init(device: UUID, name: String, site: String?, status: DeviceStatus, lastSeen: Date, inLostMode: Bool) {
        self.device = device
        self.name = name
        self.site = site
        self.status = status
        self.lastSeen = lastSeen
        self.inLostMode = inLostMode
    }
}

/// An alert the rules may raise.
package struct AlertRaise: Sendable, Equatable {
    package var device: UUID
    package var cause: DeviceAlertCause
    package var deviceName: String
    package var site: String?
    /// The device's status when it was raised, for its history.
    package var status: DeviceStatus
    package var detail: String

    package init(device: UUID, cause: DeviceAlertCause, deviceName: String, site: String?, status: DeviceStatus, detail: String) {
        self.device = device
        self.cause = cause
        self.deviceName = deviceName
        self.site = site
        self.status = status
        self.detail = detail
    }
}

/// An alert still open, as the rules need it.
package struct OpenAlert: Sendable, Equatable, Hashable {
    package var id: UUID
    package var device: UUID
    package var cause: DeviceAlertCause

    package init(id: UUID, device: UUID, cause: DeviceAlertCause) {
        self.id = id
        self.device = device
        self.cause = cause
    }
}
