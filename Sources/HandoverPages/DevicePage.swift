import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// A device's page on the dashboard (`/dashboard/devices/{id}`): its status and why, the forms an
/// operator at its site may use (back in service with a note, hand over now), its alerts,
/// custody, API key, MDM commands, retire and delete for an admin there, and its history (every
/// run, escalation and return, with who acted).
package enum DevicePage {
    /// What the device's page shows besides the device itself, as the server loaded it.
    package struct Records: Sendable {
        /// The device's history, newest first.
        package var history: [DeviceHistoryEntry]
        /// The newest MDM commands for the device.
        package var commands: [MDMCommand]
        /// The device's custody records, newest first.
        package var custodies: [Custody]
        /// The runs those custody records name.
        package var runsByID: [UUID: LogoutRun]
        /// The device's API keys, newest first.
        package var keys: [APIKey]
        /// The device's alerts.
        package var alerts: [DeviceAlert]

        package init(history: [DeviceHistoryEntry] = [], commands: [MDMCommand] = [], custodies: [Custody] = [],
                     runsByID: [UUID: LogoutRun] = [:], keys: [APIKey] = [], alerts: [DeviceAlert] = []) {
            self.history = history
            self.commands = commands
            self.custodies = custodies
            self.runsByID = runsByID
            self.keys = keys
            self.alerts = alerts
        }
    }

    /// The page's body; `error` is a refusal of the back-in-service, hand-over or erase form,
    /// `retirementError` one of retire or delete (shown in their section).
    @HTMLBuilder
    package static func body(_ device: Device, records: Records, viewer: DashboardViewer, error: String?, retirementError: String? = nil) -> HTML {
        let id = device.id?.uuidString.lowercased() ?? ""
        HTML.element("section") {
            HTML.element("p") {
                DashboardLayout.badge(device.status)
                if let since = device.statusChangedAt { " since "; DashboardLayout.time(since) }
            }
            if let reason = device.statusReason { HTML.element("p") { HTML.element("strong") { "Why: " }; reason } }
            HTML.element("p", ["class": "note"]) {
                "Last completed hand-over (or back in service): "; device.lastCompletedAt.map(DashboardLayout.time) ?? "none yet"
            }
            HTML.element("p", ["class": "note"]) {
                "Site: \(device.site ?? "none")"
                if viewer.may(.operator, at: device.site) {
                    " · "; HTML.element("a", ["href": "/dashboard/devices/\(id)/edit"]) { "Rename, move or change identifiers" }
                }
            }
        }
        let mayAct = viewer.may(.operator, at: device.site)  // deviceAction's need, as every form here
        if device.status.needsAttention, mayAct {
            HTML.element("section", ["id": "back-in-service"]) {
                HTML.element("h2") { "Back in service" }
                HTML.element("p") {
                    "Only a person decides that this device may be handed on again. Say what was checked and who decided: "
                    "the note stays in the device's history."
                }
                if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
                HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/back-in-service"]) {
                    DashboardLayout.csrfField(viewer.csrfToken)
                    HTML.element("label", ["for": "note"]) { "Note (required)" }
                    HTML.element("textarea", ["id": "note", "name": "note", "rows": "3", "maxlength": String(DeviceStatus.noteLimit),
                                              "placeholder": "Mail signed out by hand; checked by J. Ortiz, IT desk."]) { "" }
                    HTML.element("button", ["type": "submit"]) { "Put back in service" }
                }
            }
        } else if let error {
            HTML.element("p", ["class": "error", "role": "alert"]) { error }
        }
        if mayAct, device.status != .retired {
            HTML.element("section", ["id": "hand-over"]) {
                HTML.element("h2") { "Hand over now" }
                HTML.element("p") {
                    "Signs whoever holds this device out of every app, as the launcher does at a shift change: a logout run of every "
                    "target app starts now, and its timeline opens."
                }
                HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/hand-over"]) {
                    DashboardLayout.csrfField(viewer.csrfToken)
                    HTML.element("button", ["type": "submit"]) { "Hand over now" }
                }
            }
        }
        if !records.alerts.isEmpty { AlertsSection.html(records.alerts, viewer: viewer, emptyText: "", back: "device") }
        CustodySection.html(holder: records.custodies.first { $0.checkedInAt == nil }, history: records.custodies, runs: records.runsByID)
        DeviceKeysSection.html(records.keys, deviceID: id, mayChange: mayAct && device.status != .retired, csrf: viewer.csrfToken)
        if !records.commands.isEmpty {
            DeviceMDMSection.html(records.commands, device: device, id: id, csrf: viewer.csrfToken, error: error, mayConfirm: mayAct)
        }
        if viewer.may(DeviceRetirementForm.role, at: device.site) {
            DeviceRetirementForm.html(device, id: id, deletable: device.lastRunID == nil && records.custodies.isEmpty, csrf: viewer.csrfToken,
                                      error: retirementError)
        }
        history(records.history)
    }

    /// The device's history: every run, escalation and return, with who acted.
    package static func history(_ history: [DeviceHistoryEntry]) -> HTML {
        .element("section") {
            HTML.element("h2") { "History" }
            if history.isEmpty {
                HTML.element("p", ["class": "note"]) { "Nothing yet: no run has started on this device." }
            } else {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "history"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "When" }; HTML.element("th") { "What" }; HTML.element("th") { "Status" }
                            HTML.element("th") { "Why" }; HTML.element("th") { "Who" }
                        }
                        for entry in history {
                            HTML.element("tr") {
                                HTML.element("td") { DashboardLayout.time(entry.createdAt) }
                                HTML.element("td") {
                                    let what = entry.event.rawValue.replacingOccurrences(of: "_", with: " ")
                                    if let run = entry.runID { HTML.element("a", ["href": DashboardLinks.run(run)]) { what } } else { what }
                                }
                                HTML.element("td") { DashboardLayout.badge(entry.fromStatus); " → "; DashboardLayout.badge(entry.toStatus) }
                                HTML.element("td") { entry.note ?? entry.reason ?? "—" }
                                HTML.element("td") { entry.actor }
                            }
                        }
                    }
                }
            }
        }
    }
}
