import Foundation
import HandoverCore
import HandoverProtocol
import LinkCallbacks
import NIOConcurrencyHelpers
import Vapor

/// `GET /api/v1/logout-runs/{runID}/events`: a run followed live over server-sent events. The one
/// run route outside the generated API (``APIHandler``): its answer is not a JSON body but a stream
/// that lasts as long as the run, written by ``EventStream`` (keep-alive comments, the end of the
/// run), where the generated protocol would offer only an untyped body.
struct LogoutRunEventRoutes: RouteCollection {
    let hub: RunEventHub
    /// The generated API's handler: the stream is authorized as `GET /api/v1/logout-runs/{id}` is.
    let api: APIServices
    /// The open streams, which end with the key that opened them.
    let streams: OpenStreams

    func boot(routes: RoutesBuilder) throws {
        routes.grouped(RequireScope(role: .viewer, device: true)).get("logout-runs", ":runID", "events", use: events)
    }

    /// `text/event-stream`: an `event: run` with the whole run now and after every change, until
    /// the run finishes; a comment line every 15 s keeps proxies from closing the stream.
    @Sendable func events(_ request: Request) async throws -> Response {
        let first = try await authorizedView(request)
        let runID = first.id
        let database = api.databases.primary
        let runs = api.runs
        let changes = hub.subscribe(to: runID)
        let sent = NIOLockedValueBox(false)
        let principal = try request.principal
        let lease = streams.lease(forKey: principal.keyID, expiresAt: principal.expiresAt, clock: api.clock, on: api.databases.reads)
        return EventStream.response(changes: changes, lease: lease) {
            // The view read for authorization is the first event; later ones are read anew.
            let view = sent.withLockedValue { $0 } ? try await runs(database).view(runID) : first
            sent.withLockedValue { $0 = true }
            let json = String(decoding: try JSONEncoder.api.encode(view), as: UTF8.self)
            return EventStream.Event(name: "run", data: json, isFinal: view.status.isFinished)
        }
    }

    private func authorizedView(_ request: Request) async throws -> LogoutRunView {
        try await api.handler(for: request).authorizedView(request.parameters.get("runID") ?? "")
    }
}
