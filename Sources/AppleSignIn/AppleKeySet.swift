import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Apple's public signing keys (`GET /auth/keys`), fetched on demand and cached.
///
/// - The set is kept for the `max-age` of the response's `Cache-Control` header, or 24 hours when
///   there is none.
/// - A token naming a key id the cached set lacks triggers a refetch (Apple rotates keys), but at
///   most one such refetch per ``unknownKeyRefetchInterval`` (5 minutes by default), so a stream of
///   forged key ids cannot make this server hammer Apple.
/// - Concurrent fetches are merged: callers that need the set while a fetch is running wait for
///   that one fetch.
/// - When a fetch fails, the keys already held are still used; the next attempt waits
///   ``retryAfterFailure``.
/// - Keys are parsed once and kept; verifying a token rebuilds nothing.
///
/// Share one instance between the ``IdentityTokenVerifier`` and the ``ServerNotificationVerifier``.
public actor AppleKeySet {
    /// How long a key set without a `Cache-Control: max-age` is kept: 24 hours.
    public static let defaultMaxAge: TimeInterval = 24 * 60 * 60

    private let keysURL: String
    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date
    private let timeout: TimeAmount
    /// The least time between two refetches caused by an unknown key id.
    public let unknownKeyRefetchInterval: TimeInterval
    /// How long after a failed fetch the next one may start.
    public let retryAfterFailure: TimeInterval
    private let fallbackMaxAge: TimeInterval

    private var keys: [String: AppleSigningKey] = [:] {
        didSet { snapshot.set(keys: keys, expiresAt: expiresAt) }
    }
    /// The same keys and expiry, readable without a hop onto the actor (the path of every
    /// verification once the set is fresh).
    private nonisolated let snapshot = KeySnapshot()
    private var expiresAt: Date? {
        didSet { snapshot.set(keys: keys, expiresAt: expiresAt) }
    }
    private var lastUnknownKeyRefetch: Date?
    private var retryNotBefore: Date?
    private var lastFailure: String?
    private var inFlight: Task<Void, Never>?

    /// Creates an empty key set; the first verification fetches it.
    ///
    /// - Parameters:
    ///   - baseURL: Apple's origin; the keys are read from `baseURL/auth/keys`.
    ///   - httpClient: The client to fetch with. The caller owns it and shuts it down.
    ///   - timeout: The deadline of one fetch.
    ///   - unknownKeyRefetchInterval: The least time between two refetches caused by an unknown `kid`.
    ///   - retryAfterFailure: How long after a failed fetch the next one may start.
    ///   - fallbackMaxAge: How long a response without `Cache-Control: max-age` is kept.
    ///   - now: The clock. Tests pass a manual one so that nothing ever sleeps.
    public init(
        baseURL: URL = AppleID.defaultBaseURL,
        httpClient: HTTPClient,
        timeout: Duration = .seconds(10),
        unknownKeyRefetchInterval: TimeInterval = 5 * 60,
        retryAfterFailure: TimeInterval = 60,
        fallbackMaxAge: TimeInterval = AppleKeySet.defaultMaxAge,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.keysURL = baseURL.appendingEndpoint("/auth/keys").absoluteString
        self.httpClient = httpClient
        self.timeout = TimeAmount(timeout)
        self.unknownKeyRefetchInterval = unknownKeyRefetchInterval
        self.retryAfterFailure = retryAfterFailure
        self.fallbackMaxAge = fallbackMaxAge
        self.now = now
    }

    /// The key with id `keyID`, fetching or refetching the set when the rules above allow.
    ///
    /// - Throws: ``AppleJWTError/unknownKeyID(_:)`` when the key is not in the set (and no refetch
    ///   is allowed or the refetch did not bring it), ``AppleJWTError/keySetUnavailable(_:)`` when no
    ///   key is held and the fetch failed.
    public func key(id keyID: String) async throws(AppleJWTError) -> AppleSigningKey {
        let now = now()
        let fresh = expiresAt.map { now < $0 } ?? false
        if fresh, let key = keys[keyID] { return key }

        if let running = inFlight {
            await running.value
        } else if !fresh {
            // Never fetched, or past max-age: refetch unless a failure asked us to wait.
            if retryNotBefore.map({ now >= $0 }) ?? true {
                await refresh()
            }
        } else {
            // A fresh set that lacks this key id: Apple may have rotated, so refetch, rate-limited.
            if let last = lastUnknownKeyRefetch, now.timeIntervalSince(last) < unknownKeyRefetchInterval {
                throw .unknownKeyID(keyID)
            }
            lastUnknownKeyRefetch = now
            await refresh()
        }

        if let key = keys[keyID] { return key }
        if keys.isEmpty, let lastFailure { throw .keySetUnavailable(lastFailure) }
        throw .unknownKeyID(keyID)
    }

    /// The key `keyID` when the set is fresh and holds it, without waiting for the actor; `nil`
    /// means "ask ``key(id:)``".
    public nonisolated func cachedKey(id keyID: String) -> AppleSigningKey? {
        snapshot.key(keyID, now: now())
    }

    /// Key ids currently held, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// Installs a key set from its JSON as if it had just been fetched (kept for the fallback max
    /// age). For deployments that bundle a key set, and for benchmarks that must not touch the network.
    public func install(jwks json: Data) async throws(AppleJWTError) {
        let set: JSONWebKeySet
        do { set = try JSONDecoder().decode(JSONWebKeySet.self, from: json) } catch {
            throw .malformed("key set is not a JWKS: \(error)")
        }
        keys = await set.signingKeys(reusing: keys)
        expiresAt = now().addingTimeInterval(fallbackMaxAge)
    }

    /// Starts a fetch, or joins the one running, and waits for it to be applied.
    private func refresh() async {
        if let running = inFlight {
            await running.value
            return
        }
        let task = Task { await self.fetchAndApply() }
        inFlight = task
        await task.value
    }

    private func fetchAndApply() async {
        defer { inFlight = nil }
        do {
            var request = HTTPClientRequest(url: keysURL)
            request.method = .GET
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await httpClient.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                throw KeySetFetchFailure(reason: "GET /auth/keys answered \(response.status.code)")
            }
            let set = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(body.readableBytesView))
            let parsed = await set.signingKeys(reusing: keys)
            guard !parsed.isEmpty else { throw KeySetFetchFailure(reason: "GET /auth/keys held no RS256 key") }
            let maxAge = CacheControl.maxAge(response.headers.first(name: "Cache-Control")) ?? fallbackMaxAge
            keys = parsed
            expiresAt = now().addingTimeInterval(maxAge)
            retryNotBefore = nil
            lastFailure = nil
        } catch {
            // Keep the keys we hold; try again after a pause.
            retryNotBefore = now().addingTimeInterval(retryAfterFailure)
            lastFailure = (error as? KeySetFetchFailure)?.reason ?? "\(error)"
        }
    }
}

private struct KeySetFetchFailure: Error {
    var reason: String
}

/// Reads `max-age` from a `Cache-Control` header.
package enum CacheControl {
    /// The `max-age` directive in seconds, or `nil` when absent or unreadable. `no-store` and
    /// `no-cache` count as 0.
    package static func maxAge(_ header: String?) -> TimeInterval? {
        guard let header else { return nil }
        var result: TimeInterval?
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "max-age":
                if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                    result = result.map { min($0, TimeInterval(seconds)) } ?? TimeInterval(seconds)
                }
            case "no-store", "no-cache":
                return 0
            default:
                continue
            }
        }
        return result
    }
}

extension TimeAmount {
    /// Converts a Swift `Duration`.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// A lock-protected copy of the key set's keys and expiry.
struct KeySnapshot: Sendable {
    private let state = NIOLockedValueBox<(keys: [String: AppleSigningKey], expiresAt: Date?)>(([:], nil))

    func set(keys: [String: AppleSigningKey], expiresAt: Date?) {
        state.withLockedValue { $0 = (keys, expiresAt) }
    }

    func key(_ id: String, now: Date) -> AppleSigningKey? {
        state.withLockedValue { state in
            guard let expiresAt = state.expiresAt, now < expiresAt else { return nil }
            return state.keys[id]
        }
    }
}
