import Foundation

/// The one rate-limit mechanism of the server: every unauthenticated write, every wrong
/// credential and every refusal a stranger can cause is counted here, per client address and,
/// where the request names one, per key (an email address, a user). Over a limit, the route
/// answers 429 with `Retry-After` (a ``HandoverCore/DomainError`` of kind `rateLimited`, with its
/// `retryAfter`).
///
/// | Policy | Counted | Limit |
/// |---|---|---|
/// | ``Policy/appleNonce`` | every `POST /auth/apple/nonce` | 60 a minute per address |
/// | ``Policy/wrongAPIKey`` | every unknown API key: the API, the dashboard's key sign-in | 30 a minute per address |
/// | ``Policy/wrongClientSecret`` | every wrong OAuth client id or secret (`/oauth/token`, `/oauth/introspect`, `/oauth/revoke`) | 30 a minute per address |
/// | ``Policy/wrongBearer`` | every wrong bearer at the Shared Signals endpoints, `/ssf/push` and Global Token Revocation | 30 a minute per address |
/// | ``Policy/wrongEmailToken`` | every sign-in link that does not open | 20 in 15 minutes per address |
/// | ``Policy/emailStart`` | every sign-in mail asked for | 20 in 15 minutes per address, 3 per mailbox |
/// | ``Policy/phoneSignIn`` | every "sign in with your phone" | 30 in 15 minutes per address, 10 per user |
/// | ``Policy/dashboardSignInStart`` | every `GET /dashboard/sign-in/provider` (each stores a sign-in's `state`) | 30 a minute per address |
/// | ``Policy/refusedSignIn`` | every refused sign-in callback and back-channel logout token | 30 a minute per address |
///
/// Credentials are counted when wrong, after they were checked: a right key, secret, bearer or
/// link is served whatever its address sent before, and is never counted. Nothing is refused
/// before the credential is looked at. Each is a 256-bit random value, so a right answer tells a
/// guesser nothing it could have reached, and a lock that refused the right one too would only
/// let one stale key behind a ward's NAT stop every other phone (OWASP Authentication Cheat
/// Sheet: account lockout as a denial of service). A wrong credential past the limit still costs
/// its lookup (one indexed read, the one a right credential costs) before its 429; the JSON API
/// sends that 429 after a second (`ServerConfiguration.rateLimitedDelay`) and closes the connection, so
/// one connection makes at most one such lookup a second, and the connection cap bounds them.
///
/// Counts live in memory, per instance: behind a load balancer with N instances a client gets
/// up to N times the limit, which still bounds a flood.
package struct RateLimits: Sendable {
    package enum Policy: String, CaseIterable, Sendable {
        case appleNonce
        case wrongAPIKey
        case wrongClientSecret
        case wrongBearer
        case wrongEmailToken
        case emailStart
        case phoneSignIn
        case dashboardSignInStart
        case refusedSignIn
    }

    private let perAddress: [Policy: AttemptLimiter]
    private let perKey: [Policy: AttemptLimiter]

    package init() {
        perAddress = [
            .appleNonce: AttemptLimiter(limit: 60, window: 60),
            .wrongAPIKey: AttemptLimiter(limit: 30, window: 60),
            .wrongClientSecret: AttemptLimiter(limit: 30, window: 60),
            .wrongBearer: AttemptLimiter(limit: 30, window: 60),
            .wrongEmailToken: AttemptLimiter(limit: 20, window: 15 * 60),
            .emailStart: AttemptLimiter(limit: 20, window: 15 * 60),
            .phoneSignIn: AttemptLimiter(limit: 30, window: 15 * 60),
            .dashboardSignInStart: AttemptLimiter(limit: 30, window: 60),
            .refusedSignIn: AttemptLimiter(limit: 30, window: 60),
        ]
        perKey = [
            .emailStart: AttemptLimiter(limit: 3, window: 15 * 60),
            .phoneSignIn: AttemptLimiter(limit: 10, window: 15 * 60),
        ]
    }

    /// Counts one attempt by `address` (and for `key`, when the policy limits keys); returns the
    /// seconds to wait when a limit is reached (the attempt is then not counted), else `nil`. For a
    /// policy that counts wrong credentials or refusals, call it once the request was found wrong:
    /// `nil` answers the refusal itself, a wait answers 429 instead.
    package func attempt(_ policy: Policy, address: String, key: String? = nil, now: Date) -> Int? {
        if let wait = perAddress[policy]?.attempt(address, now: now) { return wait }
        if let key, let wait = perKey[policy]?.attempt(key, now: now) { return wait }
        return nil
    }

    /// Throws a rate-limited ``HandoverCore/DomainError`` (429, `Retry-After`) when ``attempt(_:address:key:now:)`` refuses.
    package func check(_ policy: Policy, address: String, key: String? = nil, now: Date) throws {
        if let wait = attempt(policy, address: address, key: key, now: now) { throw DomainError.rateLimited(retryAfter: wait) }
    }
}
