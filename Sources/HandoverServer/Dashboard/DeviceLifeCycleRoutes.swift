import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
import Vapor

/// A device's page on the dashboard (`/dashboard/devices/{id}`): its status and why, its history
/// (every run, escalation and return, with who acted), and, for a device out of service or
/// overdue, the form that puts it back in service with a note. The overview lists those devices
/// as the queue IT works through. "Hand over now" starts a logout run of every target app, as
/// `POST /api/v1/devices/{id}/logout-runs` does, for an operator at the device's site.
struct DeviceLifeCycleRoutes: RouteCollection {
    let auth: DashboardAuth
    let clock: ServerClock
    let notifier: RunChangeNotifier
    /// The run starts' group commit, which the API's run starts go through too.
    let commits: RunCommits
    /// Ends a retired or deleted device's keys (``DeviceRetirement``).
    let keys: KeyRevocation

    func boot(routes: RoutesBuilder) throws {
        let devices = routes.grouped("dashboard", "devices")
        devices.get(":deviceID", use: devicePage)
        devices.post(":deviceID", "back-in-service", use: backInService)
        devices.post(":deviceID", "hand-over", use: handOverNow)
        devices.post(":deviceID", "mdm-commands", ":commandID", "confirm-erase", use: confirmErase)
        devices.post(":deviceID", "retire", use: retire)
        devices.post(":deviceID", "delete", use: delete)
    }

    @Sendable func devicePage(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, everySite: false) { viewer in
            try await page(request, viewer: viewer, error: nil, status: .ok)
        }
    }

    @Sendable func backInService(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            let note = (try? request.content.get(String.self, at: "note")) ?? ""
            do {
                _ = try await DeviceLifeCycle.returnToService(try device.storedID, note: note, actor: actor, on: auth.databases.primary, now: clock.now())
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            if let run = device.lastRunID { await notifier.runChanged(run, on: auth.databases.primary) }
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())")
        }
    }

    /// Starts a hand-over now: a logout run of every target app on the device, in one transaction
    /// with the device's step and the end of its sessions, as the API's run start. The run's
    /// timeline follows; a start that cannot begin (no target app) is shown on the device's page.
    @Sendable func handOverNow(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            let run: LogoutRunView
            do {
                run = try await commits.start(.init(deviceID: try device.storedID, actor: actor), on: request.application)
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            return DashboardLayout.redirect(DashboardLinks.run(run.id))
        }
    }

    /// A person confirms an erase by typing the device's name.
    @Sendable func confirmErase(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            guard let text = request.parameters.get("commandID"), let commandID = UUID(uuidString: text) else {
                throw DashboardError.notFound("No MDM command has this id.")
            }
            let typed = (try? request.content.get(String.self, at: "confirm")) ?? ""
            do {
                try await EraseConfirmation.confirm(commandID, of: try device.storedID, typedName: typed, actor: actor, on: auth.databases.primary,
                                                    now: clock.now())
            } catch let error as DomainError {
                let status: HTTPResponseStatus = switch error.kind {
                case .conflict: .conflict
                case .notFound: .notFound
                default: .unprocessableEntity
                }
                return try await page(request, viewer: viewer, error: error.reason, status: status)
            }
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())")
        }
    }

    /// The device's page; `error` is a refusal of the back-in-service, hand-over or erase form,
    /// `retirementError` one of retire or delete (shown in their section).
    func page(_ request: Request, viewer: DashboardViewer, error: String?, retirementError: String? = nil,
              status: HTTPResponseStatus) async throws -> Response {
        let device = try await auth.visibleDevice(request, viewer: viewer)
        let history = try await DeviceLifeCycle.history(of: try device.storedID, on: auth.databases.reads)
        let commands = try await MDMCommand.newest(20, ofDevice: try device.storedID, on: auth.databases.reads)
        let custodies = try await CustodyLedger.history(of: try device.storedID, limit: 20, on: auth.databases.reads)
        let runsByID = try await LogoutRun.byID(custodies.compactMap(\.runID), on: auth.databases.reads)
        let keys = try await APIKey.all(ofDevice: try device.storedID, on: auth.databases.reads)
        let alerts = try await DeviceAlertStore.list(visibleTo: .everySite, device: try device.storedID, limit: 10,
                                                     on: auth.databases.reads)
        let records = DevicePage.Records(history: history, commands: commands, custodies: custodies, runsByID: runsByID, keys: keys,
                                         alerts: alerts)
        return DashboardLayout.page(device.name, signedIn: viewer, status: status) {
            DevicePage.body(device, records: records, viewer: viewer, error: error, retirementError: retirementError)
        }
    }
}
