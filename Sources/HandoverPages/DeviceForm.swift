import Foundation
import HandoverCore
import HandoverSchema

/// The dashboard's device forms (`/dashboard/devices/new` and `/dashboard/devices/{id}/edit`):
/// add a device or change one (rename, move to another site, serial number, MDM id), with the
/// refusal above the form and the values given kept; and the page that shows a new device's key
/// once.
package enum DeviceForm {
    /// The form, posting to `action`, filled with `values`.
    package static func html(action: String, csrf: String, values: DeviceRegistrar.Fields, button: String, error: String?) -> HTML {
        .element("section") {
            if let error { HTML.element("p", ["class": "error", "id": "error"]) { error } }
            HTML.element("form", ["method": "post", "action": action, "class": "stack", "id": "device-form"]) {
                DashboardLayout.csrfField(csrf)
                HTML.element("label") { "Name"; HTML.element("input", ["type": "text", "name": "name", "required": "", "value": values.name ?? "",
                                                                       "placeholder": "icu-phone-1"]) }
                HTML.element("label") { "Site (a ward or hospital; empty for none)"; HTML.element("input", ["type": "text", "name": "site",
                                                                                                        "value": values.site ?? "", "placeholder": "ICU"]) }
                HTML.element("label") { "Serial number"; HTML.element("input", ["type": "text", "name": "serialNumber",
                                                                                 "value": values.serialNumber ?? "", "placeholder": "C02XK1ABJG5H"]) }
                HTML.element("label") { "MDM id"; HTML.element("input", ["type": "text", "name": "mdmDeviceID", "value": values.mdmDeviceID ?? ""]) }
                HTML.element("button", ["type": "submit"]) { button }
            }
        }
    }

    /// The add form, empty or with the values a refused add gave.
    package static func add(csrf: String, values: DeviceRegistrar.Fields = .init(), error: String? = nil) -> HTML {
        html(action: "/dashboard/devices/new", csrf: csrf, values: values, button: "Add the device", error: error)
    }

    /// The page after an add: the device, and its key shown only now.
    @HTMLBuilder
    package static func added(_ device: Device, key: String) -> HTML {
        HTML.element("p") { "Added "; DashboardLinks.device(device); device.site.map { " at \($0)" } ?? ""; "." }
        HTML.element("p") { "Its key, shown only now (the launcher on the device sends it as a bearer token):" }
        HTML.element("p") { HTML.element("code", ["id": "device-key"]) { key } }
    }
}
