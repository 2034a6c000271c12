import Foundation
import HandoverCore
import HandoverSchema
import Vapor

/// `PUT /api/v1/signals/clients/{clientID}` with `{"subjects": "fleet" | "app"}` (admin role):
/// whether a registered client's Shared Signals streams carry the whole fleet's events or its
/// own app's sessions only (``SignalsAudience``, SSF 1.0 §9.2). Answers `{"client_id", "subjects"}`;
/// each change is an `admin.signals_granted` entry of the audit log. A plain route, as the
/// transmitter's are.
struct SignalsGrantRoutes: RouteCollection {
    let clock: ServerClock
    let databases: ServerDatabases

    struct Body: Decodable {
        var subjects: String
    }

    struct Answer: Content {
        var client_id: String
        var subjects: String
    }

    func boot(routes: RoutesBuilder) throws {
        routes.grouped(RequireScope(role: .admin)).on(.PUT, "signals", "clients", ":clientID", body: .collect(maxSize: "4kb"), use: grant)
    }

    @Sendable func grant(_ request: Request) async throws -> Response {
        let clientID = request.parameters.get("clientID") ?? ""
        let accepted = SignalsAudience.Grant.allCases.map(\.rawValue).joined(separator: " or ")
        guard let buffer = request.body.data, let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView)) else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "subjects: send {\"subjects\": \"fleet\"} or {\"subjects\": \"app\"}.", field: "subjects")
        }
        guard let grant = SignalsAudience.Grant(rawValue: body.subjects) else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "subjects: '\(body.subjects.prefix(40))' is not \(accepted).", field: "subjects")
        }
        let audience = try await SignalsAudience.set(grant, for: clientID, on: try databases.sql())
        try await request.recordAdminAction(.signalsGranted, grant == .fleet ? "granted \(clientID) the whole fleet's security events"
                                                : "limited \(clientID) to its own app's sessions' security events", now: clock.now(), in: databases)
        let response = Response(status: .ok)
        try response.content.encode(Answer(client_id: clientID, subjects: audience.grant.rawValue), using: JSONEncoder.api)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }
}
