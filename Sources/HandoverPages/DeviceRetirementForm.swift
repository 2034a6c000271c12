import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// Retire and delete on a device's dashboard page, for an admin at the device's site: the retire
/// form (a note is required) for a device in the fleet, the delete form only for a device no
/// hand-over or custody names, otherwise why not; a refusal shown in the section; and the page
/// that says a device is deleted.
package enum DeviceRetirementForm {
    /// The role both forms need, at the device's site (the API's `x-handover-role` for both).
    package static let role = AdminRole.admin

    /// The section: for a device in the fleet, the retire form (a note is required); the delete
    /// form only for a device no hand-over or custody names (`deletable`), otherwise why not.
    package static func html(_ device: Device, id: String, deletable: Bool, csrf: String, error: String?) -> HTML {
        .element("section", ["id": "retire"]) {
            HTML.element("h2") { device.status == .retired ? "Retired" : "Retire or delete" }
            if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
            if device.status != .retired {
                HTML.element("p") {
                    "Retiring takes the device out of the fleet for good: its key is revoked, no hand-over starts on it, it is never "
                    "overdue, and the device list shows it only under Retired. Its history, custody and receipts stay. "
                    "Not while a hand-over is under way, nor while someone is signed in on it: hand it over first."
                }
                HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/retire"]) {
                    DashboardLayout.csrfField(csrf)
                    HTML.element("label", ["for": "retire-note"]) { "Why it leaves the fleet (required)" }
                    HTML.element("textarea", ["id": "retire-note", "name": "note", "rows": "2", "maxlength": String(DeviceStatus.noteLimit),
                                              "placeholder": "Screen broken; sent for recycling, ticket 5120."]) { "" }
                    HTML.element("button", ["type": "submit", "class": "danger"]) { "Retire this device" }
                }
            }
            if deletable {
                HTML.element("p") { "No hand-over or custody names this device, so it may be deleted (a device added by mistake)." }
                HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/delete", "class": "inline"]) {
                    DashboardLayout.csrfField(csrf)
                    HTML.element("button", ["type": "submit", "class": "danger"]) { "Delete this device" }
                }
            } else {
                HTML.element("p", ["class": "note"]) {
                    "It cannot be deleted: its hand-overs' receipts (or its custody records) name it. Retire it instead."
                }
            }
        }
    }

    /// The page after a delete: the device is gone, with its history, and its key revoked.
    package static func deleted(_ device: Device) -> HTML {
        .element("section") {
            HTML.element("p", ["role": "status"]) { "\(device.name) is deleted, with its history; its key is revoked." }
            HTML.element("p") { HTML.element("a", ["href": "/dashboard/devices"]) { "Back to the devices" } }
        }
    }
}
