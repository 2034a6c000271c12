import Fluent
import Foundation
import HandoverCore
import HandoverProtocol
import LinkCallbacks
import NIOConcurrencyHelpers
import Vapor

/// Logout runs: created by a device, read by the device or an admin, followed live over SSE.
struct LogoutRunRoutes: RouteCollection {
    let context: ServerContext

    func boot(routes: RoutesBuilder) throws {
        let either = routes.grouped(RequireScope(scopes: [.admin, .device]))
        either.post("devices", ":deviceID", "logout-runs", use: createRun)
        either.get("logout-runs", ":runID", use: getRun)
        either.get("logout-runs", ":runID", "events", use: events)
        either.post("logout-runs", ":runID", "callbacks", use: reportCallback)
    }

    @Sendable func createRun(_ request: Request) async throws -> Response {
        guard let deviceID = request.parameters.get("deviceID", as: UUID.self) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "The device id must be a UUID.")
        }
        let principal = try request.principal
        if principal.scope == .device, principal.deviceID != deviceID {
            throw APIError(.forbidden, code: "forbidden", reason: "A device key may start runs only for its own device.")
        }
        guard try await Device.find(deviceID, on: request.db) != nil else { throw APIError.notFound("device") }
        let input = request.body.data == nil ? RunInput(apps: nil) : try request.content.decode(RunInput.self, using: JSONDecoder.api)
        let view = try await context.runs(request.db).createRun(deviceID: deviceID, appIDs: input.apps)
        // The device changes hands: its Native SSO sessions end with it (global sign-out).
        try await context.sessions?.signOutDevice(deviceID, on: request.db)
        return try await view.encodeResponse(status: .created, for: request)
    }

    @Sendable func getRun(_ request: Request) async throws -> RunView {
        try await authorizedView(request)
    }

    /// The launcher reports a callback it received as a universal link (the usual path; the
    /// callback page covers the 1–3 % that land in a browser).
    @Sendable func reportCallback(_ request: Request) async throws -> CallbackReportResult {
        let view = try await authorizedView(request)
        let report = try request.content.decode(CallbackReport.self, using: JSONDecoder.api)
        guard let target = CallbackURL(report.url), target.run == view.id else {
            let expected = CallbackURL.pathPrefix.joined(separator: "/") + "/\(view.id.uuidString.lowercased())/<item>/success|error?n=<nonce>"
            throw APIError.invalid("url", "not a callback URL of this run: expected \(context.publicURL.absoluteString)/\(expected)")
        }
        let callback = LogoutRunService.Callback(run: target.run, item: target.item, outcome: target.outcome,
                                                 nonce: target.nonce, reportedBy: .launcher)
        let result = try await context.recordCallback(callback, on: request.application)
        switch result {
        case .recorded(let app, let outcome):
            return CallbackReportResult(recorded: true, status: LogoutItemState(finishedBy: outcome), app: app)
        case .alreadyRecorded(let app, let status):
            throw APIError(.conflict, code: "already_recorded", reason: "\(app) already has its outcome (\(status.rawValue)); nothing was recorded.")
        case .unknown:
            throw APIError(.notFound, code: "unknown_callback", reason: "This callback's nonce was not issued for that item.")
        }
    }

    /// `text/event-stream`: an `event: run` with the whole run now and after every change, until
    /// the run finishes; a comment line every 15 s keeps proxies from closing the stream.
    @Sendable func events(_ request: Request) async throws -> Response {
        let first = try await authorizedView(request)
        let runID = first.id
        let database = request.db
        let context = self.context
        let changes = context.hub.subscribe(to: runID)
        let sent = NIOLockedValueBox(false)
        return EventStream.response(changes: changes) {
            // The view read for authorization is the first event; later ones are read anew.
            let view = sent.withLockedValue { $0 } ? try await context.runs(database).view(runID) : first
            sent.withLockedValue { $0 = true }
            let json = String(decoding: try JSONEncoder.api.encode(view), as: UTF8.self)
            return EventStream.Event(name: "run", data: json, isFinal: view.status.isFinished)
        }
    }

    private func authorizedView(_ request: Request) async throws -> RunView {
        guard let runID = request.parameters.get("runID", as: UUID.self) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "The run id must be a UUID.")
        }
        let view = try await context.runs(request.db).view(runID)
        let principal = try request.principal
        if principal.scope == .device, principal.deviceID != view.deviceID {
            throw APIError(.forbidden, code: "forbidden", reason: "A device key may read only its own device's runs.")
        }
        return view
    }
}
