import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
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

    @Sendable func newForm(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .operator, everySite: false) { viewer in
            DashboardLayout.page("Add a device", signedIn: viewer) {
                DeviceForm.add(csrf: viewer.csrfToken)
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
                    DeviceForm.added(device, key: key)
                }
            } catch let error as DomainError {
                return DashboardLayout.page("Add a device", signedIn: viewer, status: error.kind == .conflict ? .conflict : .unprocessableEntity) {
                    DeviceForm.add(csrf: viewer.csrfToken, values: fields, error: error.reason)
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
                DeviceForm.html(action: action, csrf: viewer.csrfToken, values: values, button: "Save", error: nil)
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
                    DeviceForm.html(action: path + "/edit", csrf: viewer.csrfToken, values: fields, button: "Save", error: error.reason)
                }
            }
        }
    }
}
