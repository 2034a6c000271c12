import Crypto
import Foundation
import HandoverCore
import HandoverSchema
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
                check = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: true, in: auth.databases, now: now,
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
            let report = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: auth.databases, now: now,
                                                                allOrNothing: true, refusing: Self.siteRule(viewer))
            try await auth.recordAdminAction(.deviceChanged, "imported \(report.imported.count) device\(report.imported.count == 1 ? "" : "s")"
                                                    + (report.refused.isEmpty ? "" : " (\(report.refused.count) rows refused)"),
                                                viewer: viewer, now: clock.now())
            return DashboardLayout.page("Devices imported", signedIn: viewer, status: .created) {
                DeviceImportPage.imported(report.imported.count, refused: report.refused.count, keysCSV: report.keysCSV())
            }
        }
    }

    /// The preview: what the file would add, what it refuses, and the confirm form (when there is
    /// something to add).
    private func previewPage(_ csv: String, request: Request, viewer: DashboardViewer, status: HTTPResponseStatus,
                             note: String?) async throws -> Response {
        let report: DeviceImportReport
        do {
            report = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: true, in: auth.databases, now: clock.now(),
                                                            refusing: Self.siteRule(viewer))
        } catch let error as DeviceImportFileError {
            return DashboardLayout.page("Import devices", signedIn: viewer, status: .unprocessableEntity) {
                Self.uploadForm(csrf: viewer.csrfToken, error: "file: \(error.description)")
            }
        }
        return DashboardLayout.page("Import preview", signedIn: viewer, status: status) {
            DeviceImportPage.preview(report, csv: csv, digest: Self.digest(report), note: note, csrf: viewer.csrfToken)
        }
    }

    /// The refusal of a row at a site where `session` may not add devices.
    static func siteRule(_ viewer: DashboardViewer) -> DeviceImport.RowCheck {
        DeviceImport.RowCheck { row in
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

    /// The form that takes the file (``DeviceImportPage/uploadForm(csrf:error:limitKB:)``), up to the transport's limit.
    static func uploadForm(csrf: String, error: String?) -> HTML {
        DeviceImportPage.uploadForm(csrf: csrf, error: error, limitKB: HTTPTransport.maximumBodySize >> 10)
    }
}
