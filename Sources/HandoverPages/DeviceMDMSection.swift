import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// A device page's MDM section: the commands owed to the fleet's MDM for the device (action,
/// state, attempts, the MDM's answer), and for an erase awaiting a person, the form that confirms
/// it by typing the device's name.
package enum DeviceMDMSection {
    /// The commands owed to the fleet's MDM for this device, and the erase confirmation.
    package static func html(_ commands: [MDMCommand], device: Device, id: String, csrf: String, error: String?, mayConfirm: Bool) -> HTML {
        .element("section", ["id": "mdm"]) {
            HTML.element("h2") { "MDM" }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table") {
                    HTML.element("tr") {
                        HTML.element("th") { "Asked" }; HTML.element("th") { "Action" }; HTML.element("th") { "Status" }
                        HTML.element("th") { "Attempts" }; HTML.element("th") { "Answer" }
                    }
                    for command in commands {
                        HTML.element("tr") {
                            HTML.element("td") { DashboardLayout.time(command.createdAt) }
                            HTML.element("td") { command.action.rawValue.replacingOccurrences(of: "_", with: " "); " by "; command.connector }
                            HTML.element("td") { DashboardLayout.badge(command) }
                            HTML.element("td") { String(command.attempts) }
                            HTML.element("td") {
                                if let code = command.lastStatusCode { "HTTP \(code): " }
                                command.lastError ?? command.answer ?? "—"
                                if command.status == .failed { " (after \(command.attempts) attempt\(command.attempts == 1 ? "" : "s"))" }
                            }
                        }
                    }
                }
            }
            for command in commands where command.status == .awaitingConfirmation && mayConfirm {
                HTML.element("div", ["class": "card", "id": "erase"]) {
                    if command.action == .returnToService {
                        HTML.element("h3") { "Erase this device and return it to service?" }
                        HTML.element("p") {
                            "Return to Service erases everything on \(device.name) and cannot be undone; the phone then joins the configured Wi-Fi, "
                            "enrolls again and comes back to its Home Screen, ready for the next person (iOS 17 and later). "
                            "Type the device's name to confirm; your name goes into its history."
                        }
                    } else {
                        HTML.element("h3") { "Erase this device?" }
                        HTML.element("p") {
                            "Erasing removes everything on \(device.name) and cannot be undone. Type the device's name to confirm; "
                            "your name goes into its history."
                        }
                    }
                    if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
                    HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/mdm-commands/\(command.id?.uuidString.lowercased() ?? "")/confirm-erase"]) {
                        DashboardLayout.csrfField(csrf)
                        HTML.element("label", ["for": "confirm"]) { "Device name" }
                        HTML.element("input", ["id": "confirm", "name": "confirm", "autocomplete": "off", "placeholder": device.name])
                        HTML.element("button", ["type": "submit", "class": "danger"]) { "Erase this device" }
                    }
                }
            }
        }
    }
}
