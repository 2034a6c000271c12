import Foundation
import HandoverCore
import Vapor

/// The server's rate limits (``RateLimits``) as a request meets them: who is asking, by the
/// client's address (``clientAddress(_:)``), and when, by the server's clock; and the refusals of
/// unauthenticated requests as the audit log keeps them (``refusals``, one digest for the server).
struct Throttle: Sendable {
    let limits: RateLimits
    let clock: ServerClock
    /// Where the refusals are recorded.
    let databases: ServerDatabases
    /// Whether the client address is taken from `X-Forwarded-For` (a trusted TLS proxy in front).
    let trustsForwardedFor: Bool
    /// Refusals of requests nobody authenticated, summarised per address for the audit log.
    let refusals = RefusalDigest()

    /// The client's address for rate limits: the peer's, or behind a trusted proxy
    /// (``ServerConfiguration/trustsForwardedFor``) the last address in `X-Forwarded-For`, the
    /// one the proxy itself added.
    func clientAddress(_ request: Request) -> String {
        if trustsForwardedFor, let forwarded = request.headers[.xForwardedFor].last?.split(separator: ",").last {
            let address = forwarded.trimmingCharacters(in: .whitespaces)
            if !address.isEmpty { return address }
        }
        return request.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Counts one attempt of `request` (``RateLimits/attempt(_:address:key:now:)``); the seconds
    /// to wait when a limit is reached, else nil. For a wrong credential, call it after the
    /// credential was checked and found wrong: a right one is never counted, never refused.
    func attempt(_ policy: RateLimits.Policy, _ request: Request, key: String? = nil) -> Int? {
        limits.attempt(policy, address: clientAddress(request), key: key, now: clock.now())
    }

    /// Throws a rate-limited `DomainError` (429, `Retry-After`) when ``attempt(_:_:key:)`` refuses.
    func check(_ policy: RateLimits.Policy, _ request: Request, key: String? = nil) throws {
        try limits.check(policy, address: clientAddress(request), key: key, now: clock.now())
    }

    /// Records the refusal of `request`, which nobody authenticated, as ``RefusalDigest`` decides:
    /// the first from its address in a window as an entry, the others in the window's summary.
    /// `rateLimited`: it was answered 429.
    func recordRefusal(_ reason: String, who: String, _ request: Request, rateLimited: Bool) async throws {
        try await refusals.refused(reason, who: who, address: clientAddress(request), rateLimited: rateLimited, now: clock.now(), on: databases.primary)
    }
}
