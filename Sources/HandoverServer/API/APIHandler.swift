import Fluent
import Foundation
import HandoverCore
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
/// the key's scope before the body was read, and ``DeclaredBodyBounds`` the body's bounds after. Errors are thrown, not returned: an ``APIError`` or
/// a `DomainError`, which ``APIErrorMiddleware`` turns into the API's error body.
struct APIHandler: APIProtocol {
    let clock: ServerClock
    let origin: PublicOrigin
    let throttle: Throttle
    let notifier: RunChangeNotifier
    /// The logout runs on a database.
    let runs: @Sendable (Database) -> LogoutRunService
    let commits: RunCommits
    let operations: @Sendable (Database) -> OperationService
    /// Registers apps (built when asked: it reads the public origin, known once the port is bound).
    let appRegistrar: @Sendable () -> AppRegistrar
    let webhookRegistrar: WebhookRegistrar
    let associationFiles: AssociationFileCache
    /// The server's own sessions: a person's access token names them at a launcher's check-out.
    let sessions: SessionAuthority
    /// The customer's badge lookup (`HANDOVER_BADGE_LOOKUP_URL`), when configured.
    let badges: BadgeLookup?
    /// Ends keys and what they opened.
    let keys: KeyRevocation
    /// Each key's last use, noted in memory and written in batches.
    let keyUses: KeyUses
    /// Where the keys requests present are read.
    let liveKeys: LiveKeys

    /// The generated runtime's JSON: the same sorted keys, unescaped slashes and ISO 8601 dates
    /// as every other JSON body of the API.
    static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// Registers every generated operation on `routes`, behind API-key authentication.
    func register(on routes: RoutesBuilder) throws {
        let transport = VaporTransport(routesBuilder: routes.grouped(APIKeyAuthenticator(throttle: throttle, keyUses: keyUses, liveKeys: liveKeys),
                                                                     CurrentRequest.Binding()))
        try registerHandlers(on: transport, configuration: Self.configuration, middlewares: [OperationScopes(), AbsentBody(), DeclaredBodyBounds()])
    }

    /// A path's id, or a 400 (`invalid_id`) naming what it should have been.
    func id(_ text: String, of what: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "'\(text)' is not a valid \(what) id (a UUID).")
        }
        return id
    }
}
