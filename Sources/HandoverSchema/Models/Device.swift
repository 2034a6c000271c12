import FluentKit
import Foundation
import HandoverProtocol

/// A shared phone whose launcher logs its apps out through this server.
package final class Device: Model, @unchecked Sendable {
    package static let schema = "devices"

    @ID(key: .id) package var id: UUID?
    @Field(key: "name") package var name: String
    @Field(key: "status") package var status: DeviceStatus
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "last_run_id") package var lastRunID: UUID?
    /// Why it is in its status, when that needs saying: which apps stayed signed in on which run,
    /// or the note it went back in service with.
    @OptionalField(key: "status_reason") package var statusReason: String?
    /// When it entered its status (nil for a device that never changed since it was made).
    @OptionalField(key: "status_changed_at") package var statusChangedAt: Date?
    /// When it last completed a hand-over: the clock overdue devices are counted by.
    @OptionalField(key: "last_completed_at") package var lastCompletedAt: Date?
    /// Upper-cased; unique. How an MDM (Jamf Pro, Intune) finds the device.
    @OptionalField(key: "serial_number") package var serialNumber: String?
    /// The MDM's own id for the device, when known.
    @OptionalField(key: "mdm_device_id") package var mdmDeviceID: String?
    /// The site it belongs to (a ward, a hospital), as written; people scoped to sites see only
    /// theirs. Set with ``place(site:key:)`` (the core's `place(at:)`), which keeps ``siteKey`` beside it.
    @OptionalField(key: "site") package private(set) var site: String?
    /// The site's ``SiteName/key``: what every query by site compares.
    @OptionalField(key: "site_key") package private(set) var siteKey: String?

    package init() {}

    package init(name: String, createdAt: Date) {
        self.name = name
        self.status = .inService
        self.createdAt = createdAt
    }

    /// Puts the device at a site: its name as written and its key (`SiteName`'s, which the
    /// core's `place(at:)` passes), always together; nil for both: at none.
    package func place(site: String?, key: String?) {
        self.site = site
        self.siteKey = key
    }
}
