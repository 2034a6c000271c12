import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import Vapor

/// Retire and delete on a device's dashboard page, for an admin at the device's site: the same
/// rules and words as `POST /api/v1/devices/{id}/retire` and `DELETE /api/v1/devices/{id}`
/// (``DeviceRetirement``). A refusal comes back on the device's page, in this section, with the
/// field and the reason.
extension DeviceLifeCycleRoutes {
    /// The role both forms need, at the device's site (the API's `x-handover-role` for both).
    static let retirementRole = AdminRole.admin

    @Sendable func retire(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request, needs: Self.retirementRole) { viewer, device, actor in
            let note = (try? request.content.get(String.self, at: "note")) ?? ""
            let retired: (device: Device, revokedKeys: Int)
            do {
                retired = try await DeviceRetirement(keys: keys).retire(try device.storedID, note: note, actor: actor, on: auth.databases.primary,
                                                                        now: clock.now())
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: nil, retirementError: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            try await auth.recordAdminAction(.deviceChanged, DeviceRetirement.retiredDetail(retired.device, note: note), viewer: viewer,
                                                now: clock.now())
            if let run = retired.device.lastRunID { await notifier.runChanged(run, on: auth.databases.primary) }
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())")
        }
    }

    @Sendable func delete(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request, needs: Self.retirementRole) { viewer, device, actor in
            let deleted: Device
            do {
                deleted = try await DeviceRetirement(keys: keys).delete(try device.storedID, actor: actor, on: auth.databases.primary, now: clock.now())
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: nil, retirementError: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            try await auth.recordAdminAction(.deviceChanged, DeviceRetirement.deletedDetail(deleted), viewer: viewer, now: clock.now())
            return DashboardLayout.page("Device deleted", signedIn: viewer) {
                HTML.element("section") {
                    HTML.element("p", ["role": "status"]) { "\(deleted.name) is deleted, with its history; its key is revoked." }
                    HTML.element("p") { HTML.element("a", ["href": "/dashboard/devices"]) { "Back to the devices" } }
                }
            }
        }
    }

    /// The section: for a device in the fleet, the retire form (a note is required); the delete
    /// form only for a device no hand-over or custody names (`deletable`), otherwise why not.
    static func retirementSection(_ device: Device, id: String, deletable: Bool, csrf: String, error: String?) -> HTML {
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
}
