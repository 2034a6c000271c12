import Foundation
import HandoverCore
import HandoverProtocol
import NIOCore
import Vapor

/// Sheds new work past the server's capacity: `503 Service Unavailable` with `Retry-After` for a
/// run start or a check-out when the callbacks owed fill ``AdmissionControl``'s window, and the
/// delay of every write request (callbacks, run starts, check-outs) fed to it.
///
/// First in the chain and future-based (no task hop, no key read, no body read): a shed request
/// costs about what `/healthz` costs. The decision depends on the load and on the request's path
/// alone (a start shed earlier for the same device is taken at its turn), never on who asks: it
/// reveals no more than that this device's start was shed lately. The answer keeps the connection
/// open and is sent at once, unlike a `429`, which is for one client over its own limit.
struct AdmissionMiddleware: Middleware {
    /// What a request is to admission control.
    enum Work: Equatable {
        /// New work: a run start (`POST /api/v1/devices/{id}/logout-runs`) or a check-out
        /// (`POST /api/v1/devices/{id}/custody`).
        case new
        /// Work already admitted: a callback, by the launcher (`POST /api/v1/logout-runs/{id}/callbacks`)
        /// or by the browser page (`GET /ulc/cb/…`).
        case admitted

        init?(method: HTTPMethod, path: String) {
            // Every request passes here: most are told apart by their method and a word of their
            // path before it is split (a superset of the matches below, so nothing changes).
            guard method == .POST ? path.contains("api") : method == .GET && path.contains(CallbackURL.pathPrefix[0]) else { return nil }
            let parts = path.split(separator: "/", omittingEmptySubsequences: true)
            switch method {
            case .POST where parts.count == 5 && parts[0] == "api" && parts[1] == "v1":
                if parts[2] == "devices", parts[4] == "logout-runs" || parts[4] == "custody" {
                    self = .new
                } else if parts[2] == "logout-runs", parts[4] == "callbacks" {
                    self = .admitted
                } else {
                    return nil
                }
            case .GET where parts.count == 5 && parts.prefix(2).map(String.init) == CallbackURL.pathPrefix:
                self = .admitted
            default:
                return nil
            }
        }
    }

    let admission: AdmissionGate

    func respond(to request: Request, chainingTo next: Responder) -> EventLoopFuture<Response> {
        let path = request.url.path
        guard let work = Work(method: request.method, path: path) else { return next.respond(to: request) }
        if work == .new, case .shed(let seconds) = admission.admit(path) {
            return request.eventLoop.makeSucceededFuture(Self.busy(retryAfter: seconds))
        }
        let arrived = NIODeadline.now()
        let admission = admission
        return next.respond(to: request).always { _ in
            admission.observe(delay: .nanoseconds((NIODeadline.now() - arrived).nanoseconds), answeredStart: work == .new)
        }
    }

    /// `503` with `Retry-After` and the API's error body.
    static func busy(retryAfter seconds: Int) -> Response {
        let response = Response(status: .serviceUnavailable)
        let body = APIErrorBody(error: "overloaded", reason: "The server is at its capacity; try again in \(seconds) seconds.")
        try? response.content.encode(body, using: JSONEncoder.api)
        response.headers.replaceOrAdd(name: .retryAfter, value: String(seconds))
        return response
    }
}
