import Foundation
import HandoverCore
import HandoverPages
import Vapor

/// A device's API key on its dashboard page: its prefix, when it was made and last used, and two
/// forms for an operator at the device's site: revoke it (a lost phone: `docs/operations.md`'s
/// lost-phone procedure) and give the device a new one (shown once). The same rules as
/// `DELETE` and `POST /api/v1/devices/{deviceID}/key` (``KeyRevocation``).
struct DeviceKeyRoutes: RouteCollection {
    let auth: DashboardAuth
    let keys: KeyRevocation
    let keyUses: KeyUses

    func boot(routes: RoutesBuilder) throws {
        let devices = routes.grouped("dashboard", "devices")
        devices.post(":deviceID", "key", "revoke", use: revoke)
        devices.post(":deviceID", "key", "new", use: rekey)
    }

    @Sendable func revoke(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { _, device, actor in
            _ = try await keys.revokeKeys(ofDevice: try device.storedID, actor: actor, now: auth.clock.now(), on: auth.databases.primary)
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())#key")
        }
    }

    @Sendable func rekey(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            let made: (key: String, row: APIKey, replaced: [APIKey])
            do {
                made = try await keys.rekey(device: device, actor: actor, now: auth.clock.now(), on: auth.databases.primary)
            } catch let error as DomainError where error.kind == .conflict {
                throw DashboardError(status: .conflict, message: error.reason)
            }
            let id = try device.storedID.uuidString.lowercased()
            return DashboardLayout.page("New key for \(device.name)", signedIn: viewer) {
                HTML.element("section") {
                    HTML.element("p") {
                        "This is the device's new API key. It is shown only now: copy it into the launcher's managed app configuration "
                        "in your MDM (the key "; HTML.element("code") { "HandoverDeviceKey" }; "). "
                        made.replaced.isEmpty ? "The device had no live key." : "Its previous key is revoked: it is refused from now on, on every instance."
                    }
                    DashboardLayout.keyShownOnce(made.key)
                    HTML.element("p") { HTML.element("a", ["href": "/dashboard/devices/\(id)"]) { "Back to \(device.name)" } }
                }
            }
        }
    }

    /// The device page's section: the device's keys, newest first, and the forms.
    static func section(_ keys: [APIKey], deviceID: String, mayChange: Bool, csrf: String) -> HTML {
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
}
