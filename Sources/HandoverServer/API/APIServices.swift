import Foundation
import HandoverCore
@_spi(Generated) import OpenAPIRuntime
import Vapor

/// What the generated JSON API's handlers use, built once when the server starts; each request
/// is served by an ``APIHandler`` made of these and the request (``APIRoutes``).
struct APIServices: Sendable {
    let clock: ServerClock
    /// The server's database (``HandoverCore/ServerDatabases``).
    let databases: ServerDatabases
    let origin: PublicOrigin
    let throttle: Throttle
    let notifier: RunChangeNotifier
    /// The logout runs on a database.
    let runs: LogoutRunService.OnDatabase
    let commits: RunCommits
    let operations: OperationService.OnDatabase
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

    /// The handler for one request.
    func handler(for request: Request) -> APIHandler {
        APIHandler(services: self, request: request)
    }

    /// Registers every generated operation on `routes`, behind API-key authentication.
    func register(on routes: RoutesBuilder) throws {
        APIRoutes(services: self).register(on: routes.grouped(APIKeyAuthenticator(throttle: throttle, keyUses: keyUses, liveKeys: liveKeys)))
    }
}
