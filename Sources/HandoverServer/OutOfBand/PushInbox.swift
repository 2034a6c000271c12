import Foundation
import Vapor

/// The pushes a loopback APNs-protocol server received, by device token: what a simulated
/// phone reads instead of a notification (`handover serve --developer-mode --apns-loopback`).
public protocol PushInbox: Sendable {
    /// The JSON bodies pushed to `deviceToken`, oldest first.
    func payloads(for deviceToken: String) -> [Data]
}

/// `GET /dev/push-inbox/{deviceToken}` (admin key): `{"payloads":[<push JSON>, …]}`. Registered
/// only when the server runs with a ``PushInbox``, which only developer mode allows.
struct PushInboxRoutes: RouteCollection {
    let inbox: any PushInbox
    let context: ServerContext

    func boot(routes: RoutesBuilder) throws {
        routes.grouped("dev").grouped(APIKeyAuthenticator(context: context)).grouped(RequireScope(scopes: [.admin]))
            .get("push-inbox", ":deviceToken", use: payloads)
    }

    @Sendable func payloads(_ request: Request) async throws -> Response {
        let token = (request.parameters.get("deviceToken") ?? "").lowercased()
        let bodies = inbox.payloads(for: token).map { String(decoding: $0, as: UTF8.self) }
        let response = Response(status: .ok, body: .init(string: #"{"payloads":["# + bodies.joined(separator: ",") + "]}"))
        response.headers.replaceOrAdd(name: .contentType, value: "application/json")
        return response
    }
}
