import Foundation

/// The one rate-limit mechanism of the server: every unauthenticated write and every guess is
/// counted here, per client address and, where the request names one, per key (an email
/// address, a user). Over a limit, the route answers 429 with `Retry-After` (a
/// ``HandoverCore/DomainError`` of kind `rateLimited`, with its `retryAfter`) and does no work.
///
/// | Policy | Counted | Limit |
/// |---|---|---|
/// | ``Policy/appleNonce`` | every `POST /auth/apple/nonce` | 60 a minute per address |
/// | ``Policy/wrongAPIKey`` | every request with an unknown API key | 30 a minute per address |
/// | ``Policy/wrongEmailToken`` | every sign-in link that does not open | 20 in 15 minutes per address |
/// | ``Policy/emailStart`` | every sign-in mail asked for | 20 in 15 minutes per address, 3 per mailbox |
/// | ``Policy/phoneSignIn`` | every "sign in with your phone" | 30 in 15 minutes per address, 10 per user |
///
/// Counts live in memory, per instance: behind a load balancer with N instances a client gets
/// up to N times the limit, which still bounds a flood.
package struct RateLimits: Sendable {
    package enum Policy: String, CaseIterable, Sendable {
        case appleNonce
        case wrongAPIKey
        case wrongEmailToken
        case emailStart
        case phoneSignIn
    }

    private let perAddress: [Policy: AttemptLimiter]
    private let perKey: [Policy: AttemptLimiter]

    package init() {
        perAddress = [
            .appleNonce: AttemptLimiter(limit: 60, window: 60),
            .wrongAPIKey: AttemptLimiter(limit: 30, window: 60),
            .wrongEmailToken: AttemptLimiter(limit: 20, window: 15 * 60),
            .emailStart: AttemptLimiter(limit: 20, window: 15 * 60),
            .phoneSignIn: AttemptLimiter(limit: 30, window: 15 * 60),
        ]
        perKey = [
            .emailStart: AttemptLimiter(limit: 3, window: 15 * 60),
            .phoneSignIn: AttemptLimiter(limit: 10, window: 15 * 60),
        ]
    }

    /// Counts one attempt by `address` (and for `key`, when the policy limits keys); returns the
    /// seconds to wait when a limit is reached (the attempt is then not counted), else `nil`.
    package func attempt(_ policy: Policy, address: String, key: String? = nil, now: Date) -> Int? {
        if let wait = perAddress[policy]?.attempt(address, now: now) { return wait }
        if let key, let wait = perKey[policy]?.attempt(key, now: now) { return wait }
        return nil
    }

    /// Whether `address` is over the limit now, without counting (for limits counted on failure:
    /// a client that has guessed wrong too often is refused before its next guess is checked).
    package func isBlocked(_ policy: Policy, address: String, now: Date) -> Int? {
        perAddress[policy]?.waitTime(address, now: now)
    }

    /// Throws a rate-limited ``HandoverCore/DomainError`` (429, `Retry-After`) when ``attempt(_:address:key:now:)`` refuses.
    package func check(_ policy: Policy, address: String, key: String? = nil, now: Date) throws {
        if let wait = attempt(policy, address: address, key: key, now: now) { throw DomainError.rateLimited(retryAfter: wait) }
    }
}
