import HandoverSchema
import Vapor

/// Who made a request: the scope of their key and, for a device key, which device.
struct APIPrincipal: Authenticatable {
    var keyID: UUID
    var scope: APIKeyScope
    var deviceID: UUID?
    /// The key's name, scope and prefix, as a device's history names who acted: `"ops" (admin key hov_AbC…)`.
    var actor: String = ""
    /// When the key stops working, for a key made with an expiry: a stream it opens ends then.
    var expiresAt: Date?
}

/// Reads `Authorization: Bearer hov_…` and logs the key's principal in.
///
/// Wrong keys count against the client's address (``RateLimits/Policy/wrongAPIKey``), after they
/// were looked up: past the limit a wrong key answers 429, while a right key from the same address
/// is always served (keys are 256 random bits: a right one tells a guesser nothing it could
/// reach, and one stale key behind a ward's NAT must not stop the other phones).
struct APIKeyAuthenticator: AsyncBearerAuthenticator {
    let throttle: Throttle
    /// Where each key's use is noted (written in batches, not on the request's path).
    let keyUses: KeyUses
    /// Where keys are read (in batches, each read after its request arrived).
    let liveKeys: LiveKeys

    func authenticate(bearer: BearerAuthorization, for request: Request) async throws {
        let now = throttle.clock.now()
        guard let key = try await liveKeys.live(bearer.token, now: now), let scope = APIKeyScope(rawValue: key.scope) else {
            if let wait = throttle.attempt(.wrongAPIKey, request) { throw APIError.tooManyRequests(retryAfter: wait) }
            return
        }
        keyUses.note(key.id, at: now)
        if let site = key.site {
            // Found and right, so not counted as a guess: refused for what it is.
            throw APIError(.forbidden, code: "forbidden",
                           reason: "\"\(key.name)\" is a key for \(site) only: it opens the dashboard, not the API, whose operations span sites. "
                               + "Use a key for every site.")
        }
        request.auth.login(APIPrincipal(keyID: key.id, scope: scope, deviceID: key.device_id,
                                        actor: "\"\(key.name)\" (\(key.scope) key \(key.key_prefix)…)", expiresAt: key.expires_at))
    }
}

/// Answers 401 with no valid key, and 403 with a key whose role is below ``role`` (or a device
/// key where ``device`` is false).
struct RequireScope: AsyncMiddleware {
    /// The least role a person's or service's key needs.
    var role: AdminRole
    /// Whether a device key may call too (for its own device; the handler checks which).
    var device: Bool = false

    func respond(to request: Request, chainingTo next: AsyncResponder) async throws -> Response {
        try check(request)
        return try await next.respond(to: request)
    }

    /// Throws the 401 or 403 this request deserves, if any.
    func check(_ request: Request) throws {
        guard let principal = request.auth.get(APIPrincipal.self) else {
            throw APIError(.unauthorized, code: "unauthorized",
                           reason: "Send a valid API key as 'Authorization: Bearer hov_…'. Create one with 'handover admin create-key'.")
        }
        if let held = principal.scope.role {
            guard held.includes(role) else {
                throw APIError(.forbidden, code: "forbidden",
                               reason: "This key has the '\(held.rawValue)' role; this operation needs \(role.rawValue)\(device ? " (or the device's own key)" : "").")
            }
        } else if !device {
            throw APIError(.forbidden, code: "forbidden",
                           reason: "A device key may only start, read and answer its own device's runs; this operation needs a \(role.rawValue) key.")
        }
    }
}

extension Request {
    /// The authenticated principal; routes behind ``RequireScope`` always have one.
    var principal: APIPrincipal {
        get throws {
            guard let principal = auth.get(APIPrincipal.self) else {
                throw APIError(.unauthorized, code: "unauthorized", reason: "Send a valid API key.")
            }
            return principal
        }
    }
}
