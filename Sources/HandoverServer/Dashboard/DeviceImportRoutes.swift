import Crypto
import Foundation
import HandoverCore
import HandoverTransport
import HandoverPages
import Vapor

/// The fleet import on the dashboard (`/dashboard/devices/import`, issue 66): a CSV file,
/// uploaded or pasted (the CLI's format, or a Jamf Pro or Intune export: ``DeviceImportPlan``),
/// is first previewed with nothing written: each device that would be added, each refused row
/// with its line, field and reason. The preview's confirm form carries the CSV and a digest of
/// what was shown; the import checks the file again and refuses (409, with the new preview) when
/// the registry changed so that it would not import exactly what was previewed.
///
/// Who may: an operator, as `POST /api/v1/devices`; a row is added only at a site where the
/// person holds the operator role (a row without a site needs it at every site), otherwise it is
/// refused on its `site` field. Each new device's key is shown once, as CSV.
struct DeviceImportRoutes: RouteCollection {
    let auth: DashboardAuth
    let clock: ServerClock

    /// The role the import needs, at each row's site.
    static let role = AdminRole.operator
    /// The largest form read: the transport's limit on a request (256 KB, about 2,500 devices;
    /// a larger fleet goes in with `handover admin import-devices`).
    static let formLimit = ByteCount(value: HTTPTransport.maximumBodySize)

    func boot(routes: RoutesBuilder) throws {
        let devices = routes.grouped("dashboard", "devices")
        devices.get("import", use: form)
        devices.on(.POST, "import", "preview", body: .collect(maxSize: Self.formLimit), use: preview)
        devices.on(.POST, "import", body: .collect(maxSize: Self.formLimit), use: confirm)
    }

    @Sendable func form(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: Self.role, everySite: false) { viewer in
            DashboardLayout.page("Import devices", signedIn: viewer) { Self.uploadForm(csrf: viewer.csrfToken, error: nil) }
        }
    }

    @Sendable func preview(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: Self.role, everySite: false) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let csv = Self.csv(of: request)
            guard !csv.isEmpty else {
                return DashboardLayout.page("Import devices", signedIn: viewer, status: .unprocessableEntity) {
                    Self.uploadForm(csrf: viewer.csrfToken, error: "file: choose a CSV file, or paste its text (the first line names the columns).")
                }
            }
            return try await previewPage(csv, request: request, viewer: viewer, status: .ok, note: nil)
        }
    }

    @Sendable func confirm(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: Self.role, everySite: false) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let csv = Self.csv(of: request)
            let shown = (try? request.content.get(String.self, at: "preview")) ?? ""
            // What would be imported now must be what the preview showed.
            let now = clock.now()
            let check: DeviceImportReport
            do {
                check = try await HandoverServer.importDevices(csv: Data(csv.utf8), dryRun: true, in: auth.databases, now: now,
                                                               refusing: Self.siteRule(viewer))
            } catch let error as DeviceImportFileError {
                return DashboardLayout.page("Import devices", signedIn: viewer, status: .unprocessableEntity) {
                    Self.uploadForm(csrf: viewer.csrfToken, error: "file: \(error.description)")
                }
            }
            guard Self.digest(check) == shown else {
                return try await previewPage(csv, request: request, viewer: viewer, status: .conflict,
                                             note: "The registry changed since the preview, so the import would not be what you saw: "
                                                 + "nothing was imported. Here is the preview again; confirm it if it is right.")
            }
            let report = try await HandoverServer.importDevices(csv: Data(csv.utf8), dryRun: false, in: auth.databases, now: now,
                                                                allOrNothing: true, refusing: Self.siteRule(viewer))
            try await auth.recordAdminAction(.deviceChanged, "imported \(report.imported.count) device\(report.imported.count == 1 ? "" : "s")"
                                                    + (report.refused.isEmpty ? "" : " (\(report.refused.count) rows refused)"),
                                                viewer: viewer, now: clock.now())
            return DashboardLayout.page("Devices imported", signedIn: viewer, status: .created) {
                HTML.element("section", ["id": "imported"]) {
                    HTML.element("p", ["role": "status"]) {
                        "Imported \(report.imported.count) device\(report.imported.count == 1 ? "" : "s")."
                        report.refused.isEmpty ? "" : " \(report.refused.count) refused row\(report.refused.count == 1 ? " was" : "s were") left out."
                    }
                    HTML.element("p") {
                        "Their keys, shown only now, as CSV: copy them into the launchers' managed configuration in your MDM "
                        "(the key HandoverDeviceKey)."
                    }
                    HTML.element("textarea", ["id": "keys", "readonly": "readonly", "rows": "10", "cols": "100"]) { report.keysCSV() }
                    HTML.element("p") { HTML.element("a", ["href": "/dashboard/devices"]) { "See the devices" } }
                }
            }
        }
    }

    /// The preview: what the file would add, what it refuses, and the confirm form (when there is
    /// something to add).
    private func previewPage(_ csv: String, request: Request, viewer: DashboardViewer, status: HTTPResponseStatus,
                             note: String?) async throws -> Response {
        let report: DeviceImportReport
        do {
            report = try await HandoverServer.importDevices(csv: Data(csv.utf8), dryRun: true, in: auth.databases, now: clock.now(),
                                                            refusing: Self.siteRule(viewer))
        } catch let error as DeviceImportFileError {
            return DashboardLayout.page("Import devices", signedIn: viewer, status: .unprocessableEntity) {
                Self.uploadForm(csrf: viewer.csrfToken, error: "file: \(error.description)")
            }
        }
        return DashboardLayout.page("Import preview", signedIn: viewer, status: status) {
            if let note { HTML.element("p", ["class": "error", "role": "alert"]) { note } }
            HTML.element("p", ["class": "note"]) {
                "Nothing is written yet. "
                report.export.map { "The file is a \($0) export" + (report.ignoredColumns.isEmpty ? ". " : "; its columns "
                    + report.ignoredColumns.joined(separator: ", ") + " are left out. ") } ?? ""
            }
            HTML.element("section", ["id": "to-add"]) {
                HTML.element("h2") { "To add (\(report.imported.count))" }
                if !report.imported.isEmpty {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table") {
                            HTML.element("tr") {
                                HTML.element("th") { "Line" }; HTML.element("th") { "Name" }; HTML.element("th") { "Site" }
                                HTML.element("th") { "Serial number" }; HTML.element("th") { "MDM id" }
                            }
                            for row in report.imported {
                                HTML.element("tr") {
                                    HTML.element("td") { String(row.line) }; HTML.element("td") { row.name }; HTML.element("td") { row.site ?? "—" }
                                    HTML.element("td") { row.serialNumber ?? "—" }; HTML.element("td") { row.mdmDeviceID ?? "—" }
                                }
                            }
                        }
                    }
                }
            }
            HTML.element("section", ["id": "refused"]) {
                HTML.element("h2") { "Refused (\(report.refused.count))" }
                if !report.refused.isEmpty {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table") {
                            HTML.element("tr") { HTML.element("th") { "Line" }; HTML.element("th") { "Field" }; HTML.element("th") { "Why" } }
                            for row in report.refused {
                                HTML.element("tr") {
                                    HTML.element("td") { String(row.line) }; HTML.element("td") { row.column ?? "—" }; HTML.element("td") { row.reason }
                                }
                            }
                        }
                    }
                }
            }
            if report.imported.isEmpty {
                HTML.element("p") { "Nothing to import. "; HTML.element("a", ["href": "/dashboard/devices/import"]) { "Choose another file" } }
            } else {
                HTML.element("form", ["method": "post", "action": "/dashboard/devices/import", "id": "confirm-import"]) {
                    DashboardLayout.csrfField(viewer.csrfToken)
                    HTML.element("input", ["type": "hidden", "name": "csv", "value": csv])
                    HTML.element("input", ["type": "hidden", "name": "preview", "value": Self.digest(report)])
                    HTML.element("button", ["type": "submit"]) { "Import these \(report.imported.count) device\(report.imported.count == 1 ? "" : "s")" }
                }
            }
        }
    }

    /// The refusal of a row at a site where `session` may not add devices.
    static func siteRule(_ viewer: DashboardViewer) -> HandoverServer.RowCheck {
        HandoverServer.RowCheck { row in
            viewer.may(role, at: row.site?.text) ? nil
                : DeviceImportPlan.Refusal(line: row.line, column: "site",
                                           reason: "your role (\(viewer.permissions.summary)) does not allow adding devices "
                                               + (row.site.map { "at \($0.text)" } ?? "without a site (that needs \(role.rawValue) at every site)"))
        }
    }

    /// What a preview shows, as a digest the confirm form carries: the rows to add, in order.
    static func digest(_ report: DeviceImportReport) -> String {
        let shown = report.imported.map { [String($0.line), $0.name, $0.site ?? "", $0.serialNumber ?? "", $0.mdmDeviceID ?? ""] }
        let data = (try? JSONEncoder().encode(shown)) ?? Data()
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// The CSV of the form: the uploaded file (`file`), else the pasted or carried text (`csv`).
    static func csv(of request: Request) -> String {
        if let file = try? request.content.get(File.self, at: "file"), file.data.readableBytes > 0,
           let text = file.data.getString(at: file.data.readerIndex, length: file.data.readableBytes) {
            return text
        }
        return ((try? request.content.get(String.self, at: "csv")) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func uploadForm(csrf: String, error: String?) -> HTML {
        .element("section") {
            HTML.element("p") {
                "A CSV file whose first line names the columns: name, and any of serialNumber, mdmDeviceID and site; "
                "or a device export from Jamf Pro or Microsoft Intune, as it comes. You see what would be added and every refused row "
                "before anything is written. "
                "Up to \(HTTPTransport.maximumBodySize >> 10) KB here (about 2,500 devices); a larger file goes in with "
                HTML.element("code") { "handover admin import-devices" }; "."
            }
            if let error { HTML.element("p", ["class": "error", "role": "alert", "id": "error"]) { error } }
            HTML.element("form", ["method": "post", "action": "/dashboard/devices/import/preview", "enctype": "multipart/form-data",
                                  "class": "stack", "id": "import-form"]) {
                DashboardLayout.csrfField(csrf)
                HTML.element("label") { "CSV file"; HTML.element("input", ["type": "file", "name": "file", "accept": ".csv,text/csv"]) }
                HTML.element("label") {
                    "or paste it"
                    HTML.element("textarea", ["name": "csv", "rows": "8", "placeholder": "name,serialNumber,site\nicu-phone-1,C02XK1ABJG5H,ICU"]) { "" }
                }
                HTML.element("button", ["type": "submit"]) { "Preview the import" }
            }
        }
    }
}
