import Foundation
import HandoverCore
import HandoverSchema
import Vapor

/// `POST /oauth/register`: OAuth 2.0 Dynamic Client Registration (RFC 7591), with an admin API
/// key as the initial access token (section 3). It registers a backend's credentials for
/// introspection and revocation, and where its Back-Channel Logout tokens go.
///
/// - With `software_id` set to a registered app's bundle id, the client *is* that app's backend:
///   its `client_id` is the bundle id (the `aud` of the app's tokens), and its back-channel
///   settings are the app's, in the registry. Registering again replaces the secret.
/// - Without it, the client is a backend of the whole fleet, with a new `hoc_…` client id; it may
///   introspect and revoke every token and is told of every session that ends.
///
/// The answer (201) has the `client_secret`, shown only then; it is stored as a SHA-256 digest.
struct ClientRegistrationRoutes: RouteCollection {
    static let path = "/oauth/register"

    let throttle: Throttle
    let keyUses: KeyUses
    let liveKeys: LiveKeys
    let clock: ServerClock
    let databases: ServerDatabases
    /// What a back-channel logout URI may point at.
    let targets: OutboundTargets

    /// The request (RFC 7591 section 2, and Back-Channel Logout 1.0 section 2.2). Other metadata
    /// is ignored, as section 3.1 asks.
    struct Metadata: Content {
        var client_name: String?
        var software_id: String?
        var token_endpoint_auth_method: String?
        var redirect_uris: [String]?
        var backchannel_logout_uri: String?
        var backchannel_logout_session_required: Bool?
    }

    /// The answer (RFC 7591 section 3.2.1).
    struct Registered: Content {
        var client_id: String
        var client_secret: String
        var client_id_issued_at: Int
        /// 0: the secret does not expire.
        var client_secret_expires_at = 0
        var client_name: String?
        var software_id: String?
        var token_endpoint_auth_method: String
        var backchannel_logout_uri: String?
        var backchannel_logout_session_required: Bool
    }

    func boot(routes: RoutesBuilder) throws {
        routes.grouped(APIKeyAuthenticator(throttle: throttle, keyUses: keyUses, liveKeys: liveKeys)).grouped(RequireScope(role: .admin))
            .post("oauth", "register", use: register)
    }

    @Sendable func register(request: Request) async throws -> Response {
        do {
            let metadata = try decode(request)
            let registered = try await store(metadata, in: databases)
            let response = Response(status: .created)
            try response.content.encode(registered, using: JSONEncoder.api)
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        } catch let error as OAuthError {
            return try error.response()
        }
    }

    private func decode(_ request: Request) throws -> Metadata {
        guard request.headers.contentType == .json else { throw OAuthError.invalidClientMetadata("Send the client metadata as application/json.") }
        let metadata: Metadata
        do { metadata = try request.content.decode(Metadata.self, as: .json) } catch {
            throw OAuthError.invalidClientMetadata("The client metadata could not be read: \(String(describing: error).prefix(200)).")
        }
        if let name = metadata.client_name, name.isEmpty || name.count > 100 || name.containsControlCharacter {
            throw OAuthError.invalidClientMetadata("client_name: give 1 to 100 characters with no control characters.")
        }
        if let method = metadata.token_endpoint_auth_method, !ClientAuthentication.methods.contains(method) {
            throw OAuthError.invalidClientMetadata("token_endpoint_auth_method: '\(method.prefix(50))' is not offered; use \(ClientAuthentication.methods.joined(separator: " or ")).")
        }
        if let uris = metadata.redirect_uris, !uris.isEmpty {
            throw OAuthError(status: .badRequest, error: "invalid_redirect_uri",
                             description: "This server has no authorization endpoint (sign-in happens in the apps), so a client has no redirect_uris; leave them out.")
        }
        if let uri = metadata.backchannel_logout_uri, let problem = BackChannelLogoutURI.problem(with: uri, targets: targets) {
            throw OAuthError.invalidClientMetadata("backchannel_logout_uri: \(problem).")
        }
        return metadata
    }

    private func store(_ metadata: Metadata, in databases: ServerDatabases) async throws -> Registered {
        let db = databases.primary
        let now = clock.now()
        let secret = "hcs_" + BearerSecret.random()
        var newClientID = "hoc_" + BearerSecret.random().prefix(24)
        var found: RegisteredApp?
        if let softwareID = metadata.software_id {
            found = try await RegisteredClients.app(withClientID: softwareID, on: db)
            guard found != nil else {
                throw OAuthError.invalidClientMetadata("software_id: '\(softwareID.prefix(100))' is no registered app's bundle id; register the app first (POST /api/v1/apps), or leave software_id out for a fleet backend.")
            }
            newClientID = softwareID
        }
        let clientID = newClientID, app = found
        let sessionRequired = metadata.backchannel_logout_session_required ?? false
        try await ClientRegistration(clientID: clientID, secretHash: BearerSecret.digest(secret), clientName: metadata.client_name,
                                     softwareID: metadata.software_id, backchannelLogoutURI: metadata.backchannel_logout_uri,
                                     backchannelLogoutSessionRequired: sessionRequired).save(for: app, now: now, on: db)
        return Registered(client_id: clientID, client_secret: secret, client_id_issued_at: Int(now.timeIntervalSince1970),
                          client_name: metadata.client_name, software_id: metadata.software_id,
                          token_endpoint_auth_method: metadata.token_endpoint_auth_method ?? "client_secret_basic",
                          backchannel_logout_uri: metadata.backchannel_logout_uri ?? app?.backchannelLogoutURI,
                          backchannel_logout_session_required: sessionRequired)
    }
}
