import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
import Vapor

/// A logout run's page on the dashboard (`/dashboard/runs/{id}`): its apps as they stand, then
/// its timeline (``RunTimeline``): every link issued, each deadline missed and reissue, each
/// answer, timeout, backend told and webhook sent, with the time since the start.
struct RunTimelineRoutes: RouteCollection {
    let auth: DashboardAuth
    /// The logout runs on a database.
    let runs: LogoutRunService.OnDatabase

    func boot(routes: RoutesBuilder) throws {
        routes.grouped("dashboard", "runs").get(":runID", use: runPage)
        routes.grouped("dashboard", "runs").get(":runID", "receipt", use: receipt)
    }

    /// The run's signed receipt, downloaded as a file (`receipt-<run>.jwt`), for
    /// `handover audit verify-receipt`.
    @Sendable func receipt(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let (run, _) = try await authorizedRun(request, viewer: viewer)
            guard let jws = try await RunReceipts.receipt(of: run.id, on: try auth.databases.readSQL()) else {
                throw DashboardError.notFound(run.isRunning ? "The run is still running: its receipt is signed when it ends."
                                              : "This run ended before receipts were kept.")
            }
            let response = Response(status: .ok, body: .init(string: jws))
            response.headers.replaceOrAdd(name: .contentType, value: "application/jwt")
            response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"receipt-\(run.id.uuidString.lowercased()).jwt\"")
            return response
        }
    }

    /// The run and its device, when the session may see them; a 404 page otherwise.
    private func authorizedRun(_ request: Request, viewer: DashboardViewer) async throws -> (LogoutRunView, Device?) {
        let missing = DashboardError.notFound("No logout run has this id. Runs are listed on the overview and on each device's page.")
        guard let text = request.parameters.get("runID"), let runID = UUID(uuidString: text) else { throw missing }
        let view: LogoutRunView
        do {
            view = try await runs(auth.databases.reads).view(runID)
        } catch let error as DomainError where error.kind == .notFound {
            throw missing  // only an absent run is a 404; a failing database stays an error
        }
        let run = try await BackChannelLogoutReport.adding(to: view, on: auth.databases.reads)
        let device = try await Device.stored(run.deviceID, on: auth.databases.reads)
        // A run on a device of another site is as absent as a run that does not exist.
        guard viewer.siteFilter == .everySite || viewer.siteFilter.shows(device?.site) else { throw missing }
        return (run, device)
    }


    @Sendable func runPage(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let (run, device) = try await authorizedRun(request, viewer: viewer)
            let timeline = try await RunTimeline.load(of: run, device: device?.name ?? "a deleted device", on: auth.databases.reads)
            return DashboardLayout.page("Logout run", signedIn: viewer) {
                RunTimelinePage.body(run, device: device, timeline: timeline)
            }
        }
    }
}
