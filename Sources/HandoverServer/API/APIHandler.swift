import Foundation
import OpenAPIRuntime
import OpenAPIVapor
import Vapor

/// The generated JSON API (the registry, logout runs, and the out-of-band operations' admin API),
/// as the handlers of the protocol that swift-openapi-generator writes from `openapi.yaml`
/// (`API/Generated/`).
///
/// The generated code routes each operation, reads its path and body into typed input, and
/// writes the typed output; these handlers do the work. Each one reads the Vapor request (its
/// database and its authenticated key) from ``CurrentRequest``; ``OperationScopes`` has checked
/// the key's scope before the body was read. Errors are thrown, not returned: an ``APIError`` or
/// a `DomainError`, which ``APIErrorMiddleware`` turns into the API's error body.
struct APIHandler: APIProtocol {
    let context: ServerContext

    /// The generated runtime's JSON: the same sorted keys, unescaped slashes and ISO 8601 dates
    /// as every other JSON body of the API.
    static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// Registers every generated operation on `routes`, behind API-key authentication.
    static func register(on routes: RoutesBuilder, context: ServerContext) throws {
        let transport = VaporTransport(routesBuilder: routes.grouped(APIKeyAuthenticator(context: context), CurrentRequest.Binding()))
        try APIHandler(context: context).registerHandlers(on: transport, configuration: configuration, middlewares: [OperationScopes(), AbsentBody()])
    }

    /// A path's id, or a 400 (`invalid_id`) naming what it should have been.
    func id(_ text: String, of what: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "'\(text)' is not a valid \(what) id (a UUID).")
        }
        return id
    }
}
