import Foundation
import HandoverCore
import HandoverSchema

/// A device's API key on its dashboard page: its prefix, when it was made and last used, and,
/// for an operator at the device's site, the forms that revoke it (a lost phone) and give the
/// device a new one; and the page that shows a new key once.
package enum DeviceKeysSection {
    /// The device page's section: the device's keys, newest first, and the forms.
    package static func html(_ keys: [APIKey], deviceID: String, mayChange: Bool, csrf: String) -> HTML {
        .element("section", ["id": "key"]) {
            HTML.element("h2") { "API key" }
            let live = keys.first { $0.revokedAt == nil }
            if let live {
                HTML.element("p") {
                    HTML.element("code") { live.keyPrefix + "…" }
                    " made \(DashboardLayout.time(live.createdAt)), last used \(live.lastUsedAt.map { DashboardLayout.time($0) } ?? "never") (to the minute)."
                }
            } else {
                HTML.element("p", ["class": "error"]) { "This device has no live key: its launcher cannot start or report a hand-over until it gets a new one." }
            }
            if mayChange {
                HTML.element("p", ["class": "note"]) {
                    "Lost or stolen? Revoke the key first: the phone is refused from then on, and its open streams end. "
                    "Then follow the lost-phone procedure (Lost Mode, erase) in the operations guide."
                }
                HTML.element("div", ["class": "link-box"]) {
                    if live != nil {
                        HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(deviceID)/key/revoke", "class": "inline"]) {
                            DashboardLayout.csrfField(csrf)
                            HTML.element("button", ["type": "submit", "class": "danger"]) { "Revoke key" }
                        }
                    }
                    HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(deviceID)/key/new", "class": "inline"]) {
                        DashboardLayout.csrfField(csrf)
                        HTML.element("button", ["type": "submit"]) { live == nil ? "Give it a new key" : "Replace the key" }
                    }
                }
            }
            let revoked = keys.filter { $0.revokedAt != nil }
            if !revoked.isEmpty {
                HTML.element("p", ["class": "note"]) {
                    "Revoked: " + revoked.prefix(5).map { "\($0.keyPrefix)… (\(DashboardLayout.time($0.revokedAt)))" }.joined(separator: ", ")
                }
            }
        }
    }

    /// The page's title for a device's new key.
    package static func newKeyTitle(_ device: Device) -> String { "New key for \(device.name)" }

    /// The body of the page that shows a device's new key once; `replacedAny` says whether a
    /// live key was revoked for it.
    package static func newKey(_ key: String, device: Device, deviceID: String, replacedAny: Bool) -> HTML {
        .element("section") {
            HTML.element("p") {
                "This is the device's new API key. It is shown only now: copy it into the launcher's managed app configuration "
                "in your MDM (the key "; HTML.element("code") { "HandoverDeviceKey" }; "). "
                replacedAny ? "Its previous key is revoked: it is refused from now on, on every instance." : "The device had no live key."
            }
            DashboardLayout.keyShownOnce(key)
            HTML.element("p") { HTML.element("a", ["href": "/dashboard/devices/\(deviceID)"]) { "Back to \(device.name)" } }
        }
    }
}
