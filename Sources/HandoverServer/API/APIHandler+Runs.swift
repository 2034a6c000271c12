import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Vapor

/// Logout runs: created by a device, read by the device or an admin, and finished by the
/// callbacks the launcher reports. (Following a run live is a server-sent event stream, a plain
/// route: ``LogoutRunEventRoutes``.)
extension APIHandler {
    func createLogoutRun(_ input: Operations.CreateLogoutRun.Input) async throws -> Operations.CreateLogoutRun.Output {
        let deviceID = try id(input.path.deviceID, of: "device")
        let principal = try request.principal
        if principal.scope == .device, principal.deviceID != deviceID {
            throw APIError(.forbidden, code: "forbidden", reason: "A device key may start runs only for its own device.")
        }
        // A launcher that lost a start's answer sends it again with the same key (§2.6).
        let key = try IdempotencyKeyField.key(in: request.headers[IdempotencyKeyField.name])
        let view: LogoutRunView
        do {
            var apps: [UUID]?
            if case .json(let body) = input.body, let texts = body.apps {
                apps = try texts.enumerated().map { index, text in
                    guard let app = UUID(uuidString: text) else { throw APIError.invalid("apps[\(index)]", "'\(text)' is not an app id (a UUID)") }
                    return app
                }
            }
            // The hand-over, in one transaction: the run, the device's step, its sessions and pushes
            // ended, its backend-only apps with nobody signed in done (``HandOverSignOut``); the
            // answer shows the logout tokens owed to backends. An unknown device fails it with a
            // 404, found by the start's own locking of the device.
            view = try await commits.start(.init(deviceID: deviceID, appIDs: apps, actor: principal.actor, idempotencyKey: key),
                                           on: request.application)
        } catch {
            // Whatever else is wrong, an unknown device answers 404 first (read only when a start
            // fails; should that read fail too, the start's own error stands).
            if let domain = error as? DomainError, domain.kind == .notFound { throw error }
            if (try? await runs(databases.reads).deviceExists(deviceID)) == false { throw APIError.notFound("device") }
            throw error
        }
        return .created(.init(body: .json(view)))
    }

    func getLogoutRun(_ input: Operations.GetLogoutRun.Input) async throws -> Operations.GetLogoutRun.Output {
        .ok(.init(body: .json(try await authorizedView(input.path.runID))))
    }

    /// The launcher reports a callback it received as a universal link (the usual path; the
    /// callback page covers the 1–3 % that land in a browser).
    func reportCallback(_ input: Operations.ReportCallback.Input) async throws -> Operations.ReportCallback.Output {
        // The hot path of a shift change: only the run's device is read to authorize (not the
        // whole run); the recorder checks the nonce and writes.
        let runID = try await authorizedRun(input.path.runID)
        let report = switch input.body { case .json(let report): report }
        guard let target = CallbackURL(report.url), target.run == runID else {
            let expected = CallbackURL.pathPrefix.joined(separator: "/") + "/\(runID.uuidString.lowercased())/<item>/success|error?n=<nonce>"
            throw APIError.invalid("url", "not a callback URL of this run: expected \(origin.url.absoluteString)/\(expected)")
        }
        let callback = LogoutRunService.Callback(run: target.run, item: target.item, outcome: target.outcome,
                                                 nonce: target.nonce, reportedBy: .launcher)
        switch try await commits.record(callback, on: request.application) {
        case .recorded(let app, let outcome):
            return .ok(.init(body: .json(CallbackReportResult(recorded: true, status: LogoutItemState(finishedBy: outcome), app: app))))
        case .alreadyRecorded(let app, let status):
            throw APIError(.conflict, code: "already_recorded", reason: "\(app) already has its outcome (\(status.rawValue)); nothing was recorded.")
        case .unknown:
            throw APIError(.notFound, code: "unknown_callback", reason: "This callback's nonce was not issued for that item.")
        }
    }

    /// The run's id, if the request's key may report on it: an admin key, or the key of the
    /// run's device (one indexed read of the run's device).
    func authorizedRun(_ runText: String) async throws -> UUID {
        let runID = try id(runText, of: "run")
        guard let deviceID = try await runs(databases.reads).deviceOfRun(runID) else { throw DomainError.notFound("logout run") }
        try checkMayRead(runOf: deviceID)
        return runID
    }

    /// An admin key may read every run; a device key only its own device's.
    private func checkMayRead(runOf deviceID: UUID) throws {
        let principal = try request.principal
        if principal.scope == .device, principal.deviceID != deviceID {
            throw APIError(.forbidden, code: "forbidden", reason: "A device key may read only its own device's runs.")
        }
    }

    /// The run, if the request's key may read it: an admin key, or the key of the run's device.
    func authorizedView(_ runText: String) async throws -> LogoutRunView {
        let runID = try id(runText, of: "run")
        let view = try await runs(databases.reads).view(runID)
        try checkMayRead(runOf: view.deviceID)
        return try await BackChannelLogoutReport.adding(to: view, on: databases.reads)
    }
}
