import Foundation
import HandoverCore
import HandoverPages
import Vapor

/// The dashboard's device forms (issue 39): add a device (its key shown once) and change one
/// (rename, move to another site, serial number, MDM id). The same checks and sentences as
/// `POST` and `PATCH /api/v1/devices…`, through ``HandoverCore/DeviceRegistrar``. An operator
/// scoped to sites adds and moves devices only within them.
struct DeviceFormRoutes: RouteCollection {
    let auth: DashboardAuth
    let clock: ServerClock

    func boot(routes: RoutesBuilder) throws {
        let devices = routes.grouped("dashboard", "devices")
        devices.get("new", use: newForm)
        devices.post("new", use: add)
        devices.get(":deviceID", "edit", use: editForm)
        devices.post(":deviceID", "edit", use: edit)
    }

    /// The form's fields as given (text, or nil when absent).
    private static func fields(_ request: Request) -> DeviceRegistrar.Fields {
        func field(_ name: String) -> String? {
            (try? request.content.get(String.self, at: name)).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        return DeviceRegistrar.Fields(name: field("name"), serialNumber: field("serialNumber"), mdmDeviceID: field("mdmDeviceID"),
                                      site: field("site"))
    }

    private static func form(action: String, csrf: String, values: DeviceRegistrar.Fields, button: String, error: String?) -> HTML {
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

    @Sendable func newForm(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .operator, everySite: false) { viewer in
            DashboardLayout.page("Add a device", signedIn: viewer) {
                Self.form(action: "/dashboard/devices/new", csrf: viewer.csrfToken, values: .init(), button: "Add the device", error: nil)
            }
        }
    }

    @Sendable func add(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .operator, everySite: false) { viewer in
            // A field left empty on a new device is a field not given.
            var fields = Self.fields(request)
            for path in [\DeviceRegistrar.Fields.serialNumber, \.mdmDeviceID, \.site] where fields[keyPath: path]?.isEmpty == true {
                fields[keyPath: path] = nil
            }
            try DashboardAuth.requireRole(.operator, at: fields.site, in: viewer)
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            do {
                let (device, key) = try await DeviceRegistrar(now: { clock.now() }).register(fields, on: auth.databases.primary)
                try await auth.recordAdminAction(.deviceChanged, "added \(device.name)\(device.site.map { " at \($0)" } ?? "")", viewer: viewer,
                                                    now: clock.now())
                return DashboardLayout.page("Device added", signedIn: viewer, status: .created) {
                    HTML.element("p") { "Added "; DashboardLinks.device(device); device.site.map { " at \($0)" } ?? ""; "." }
                    HTML.element("p") { "Its key, shown only now (the launcher on the device sends it as a bearer token):" }
                    HTML.element("p") { HTML.element("code", ["id": "device-key"]) { key } }
                }
            } catch let error as DomainError {
                return DashboardLayout.page("Add a device", signedIn: viewer, status: error.kind == .conflict ? .conflict : .unprocessableEntity) {
                    Self.form(action: "/dashboard/devices/new", csrf: viewer.csrfToken, values: fields, button: "Add the device", error: error.reason)
                }
            }
        }
    }

    @Sendable func editForm(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .operator, everySite: false) { viewer in
            let device = try await auth.visibleDevice(request, viewer: viewer)
            try DashboardAuth.requireRole(.operator, at: device.site, in: viewer)
            let values = DeviceRegistrar.Fields(name: device.name, serialNumber: device.serialNumber, mdmDeviceID: device.mdmDeviceID, site: device.site)
            let action = "/dashboard/devices/\(try device.storedID.uuidString.lowercased())/edit"
            return DashboardLayout.page("Change \(device.name)", signedIn: viewer) {
                Self.form(action: action, csrf: viewer.csrfToken, values: values, button: "Save", error: nil)
            }
        }
    }

    @Sendable func edit(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .operator, everySite: false) { viewer in
            let device = try await auth.visibleDevice(request, viewer: viewer)
            try DashboardAuth.requireRole(.operator, at: device.site, in: viewer)
            let fields = Self.fields(request)
            if let site = fields.site, site != (device.site ?? "") {
                try DashboardAuth.requireRole(.operator, at: site.isEmpty ? nil : site, in: viewer)  // moving there too
            }
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let path = "/dashboard/devices/\(try device.storedID.uuidString.lowercased())"
            do {
                let updated = try await DeviceRegistrar(now: { clock.now() }).update(device, with: fields, on: auth.databases.primary)
                try await auth.recordAdminAction(.deviceChanged, "changed \(updated.name)\(updated.site.map { " (site \($0))" } ?? "")",
                                                    viewer: viewer, now: clock.now())
                return DashboardLayout.redirect(path)
            } catch let error as DomainError {
                return DashboardLayout.page("Change \(device.name)", signedIn: viewer, status: error.kind == .conflict ? .conflict : .unprocessableEntity) {
                    Self.form(action: path + "/edit", csrf: viewer.csrfToken, values: fields, button: "Save", error: error.reason)
                }
            }
        }
    }
}
