import Foundation
import HandoverCore
import Vapor

/// The handlers of the generated JSON API (the registry, logout runs, and the out-of-band
/// operations' admin API): the protocol swift-openapi-generator writes from `openapi.yaml`
/// (`API/Generated/`), served for one request.
///
/// ``APIRoutes`` makes one for each request, with the request itself: its caller (the key
/// ``APIKeyAuthenticator`` found) and its database are the handler's own, known to the compiler,
/// never looked up from an ambient value. The generated code reads the operation's path and body
/// into typed input and writes the typed output; ``OperationScopes`` has checked the key's scope
/// before the body was read, and ``DeclaredBodyBounds`` the body's bounds after. Errors are
/// thrown, not returned: an ``APIError`` or a `DomainError`, which ``APIErrorMiddleware`` turns
/// into the API's error body.
struct APIHandler: APIProtocol {
    /// The services every request shares.
    let services: APIServices
    /// The request being served: its authenticated caller (`principal`) and its database.
    let request: Request

    var clock: ServerClock { services.clock }
    var databases: ServerDatabases { services.databases }
    var origin: PublicOrigin { services.origin }
    var notifier: RunChangeNotifier { services.notifier }
    var runs: LogoutRunService.OnDatabase { services.runs }
    var commits: RunCommits { services.commits }
    var operations: OperationService.OnDatabase { services.operations }
    var appRegistrar: @Sendable () -> AppRegistrar { services.appRegistrar }
    var webhookRegistrar: WebhookRegistrar { services.webhookRegistrar }
    var associationFiles: AssociationFileCache { services.associationFiles }
    var sessions: SessionAuthority { services.sessions }
    var badges: BadgeLookup? { services.badges }
    var keys: KeyRevocation { services.keys }
    var keyUses: KeyUses { services.keyUses }

    /// A path's id, or a 400 (`invalid_id`) naming what it should have been.
    func id(_ text: String, of what: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "'\(text)' is not a valid \(what) id (a UUID).")
        }
        return id
    }
}
