import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends a request again while the server says it is busy, waiting as ``BusyServerPolicy`` says:
/// the innermost middleware of ``FleetServer``'s generated client, so it reads the raw answer
/// before `RefusalReader` turns it into an error, and the loop ``HandoverAPIConnection`` sends
/// its own requests through.
///
/// - A `503 Service Unavailable` (RFC 9110 §15.6.4) is sent again, with or without
///   `Retry-After`; except a check-out's 503 without one, which is `badge_lookup_unavailable`
///   (the badge directory is down: the person at the dock is told at once, as the API promises).
/// - A `429 Too Many Requests` (RFC 6585 §4) is sent again only when it says when, in
///   `Retry-After` (RFC 9110 §10.2.3, read by ``RetryAfter``; a value that is neither
///   `delay-seconds` nor an `HTTP-date` counts as absent).
/// - No other status is sent again.
/// - A request that got no answer (the transport failed) is sent again only when sending it twice
///   does no harm: a `GET` or `HEAD`; `reportCallback`, whose nonce makes a second report of a
///   recorded callback a 409 that ``FleetServer/reportCallback(run:url:)`` reads as
///   ``CallbackReportOutcome/alreadyRecorded``; and a run start with an `Idempotency-Key`, which
///   the server answers with the run the key started.
///
/// When the policy gives up, the last answer is returned unchanged (or the last transport error
/// thrown), so the caller sees the same ``FleetServerError`` as without retries.
struct BusyServerRetry: ClientMiddleware {
    /// The most of a request body kept to send it again; the API refuses bodies over 16 KB.
    static let bodyLimit = 1024 * 1024

    let policy: BusyServerPolicy
    let clock: any Clock<Duration>
    /// Makes the jitter's generator, one per call (a seeded one in tests).
    let makeGenerator: @Sendable () -> any RandomNumberGenerator
    /// The wall clock an `HTTP-date` is read against.
    let now: @Sendable () -> Date

    init(policy: BusyServerPolicy, clock: any Clock<Duration> = ContinuousClock(),
         makeGenerator: @escaping @Sendable () -> any RandomNumberGenerator = { SystemRandomNumberGenerator() },
         now: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.clock = clock
        self.makeGenerator = makeGenerator
        self.now = now
    }

    /// Whether an answer with `status` asks for the same request again.
    static func asksAgain(status: Int, retryAfter: RetryAfter?, operationID: String?) -> Bool {
        switch status {
        case 503: retryAfter != nil || operationID != Operations.CheckOutDevice.id
        case 429: retryAfter != nil
        default: false
        }
    }

    /// Whether a request may be sent twice when its first sending got no answer.
    ///
    /// - Parameter keyed: whether the request carries an `Idempotency-Key` (a run start's).
    static func isIdempotent(method: HTTPRequest.Method, operationID: String?, keyed: Bool = false) -> Bool {
        method == .get || method == .head || operationID == Operations.ReportCallback.id
            || (keyed && operationID == Operations.CreateLogoutRun.id)
    }

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        // Collected once: a body may be readable only once, and every attempt sends it whole.
        var bytes: HTTPBody.ByteChunk?
        if let body { bytes = try await HTTPBody.ByteChunk(collecting: body, upTo: Self.bodyLimit) }
        let resendable = bytes
        let keyed = request.headerFields[IdempotencyKeyQuoting.name] != nil
        return try await exchange(idempotent: Self.isIdempotent(method: request.method, operationID: operationID, keyed: keyed),
                                  operationID: operationID) {
            try await next(request, resendable.map { HTTPBody($0) }, baseURL)
        } reading: { answer in
            (answer.0.status.code, answer.0.headerFields[.retryAfter])
        }
    }

    /// Sends with `send` until the answer is not a busy server's, the policy gives up, or the
    /// transport fails on a request that is not idempotent; returns the last answer.
    ///
    /// - Parameter read: the status of an answer and its `Retry-After` field value, if any.
    func exchange<Answer>(idempotent: Bool, operationID: String?, send: () async throws -> Answer,
                          reading read: (Answer) -> (status: Int, retryAfter: String?)) async throws -> Answer {
        var generator = AnyGenerator(base: makeGenerator())
        var waited = Duration.zero
        var attempt = 0
        while true {
            attempt += 1
            let answer: Answer
            do {
                answer = try await send()
            } catch {
                guard idempotent, !Task.isCancelled, !(error is CancellationError),
                      let wait = policy.wait(afterAttempt: attempt, retryAfter: nil, waitedSoFar: waited, using: &generator) else {
                    throw error
                }
                try await clock.sleep(for: wait)
                waited += wait
                continue
            }
            let (status, field) = read(answer)
            let instant = now()
            let retryAfter = field.flatMap { RetryAfter($0, now: instant) }
            guard Self.asksAgain(status: status, retryAfter: retryAfter, operationID: operationID),
                  let wait = policy.wait(afterAttempt: attempt, retryAfter: retryAfter?.delay(from: instant),
                                         waitedSoFar: waited, using: &generator) else {
                return answer
            }
            try await clock.sleep(for: wait)
            waited += wait
        }
    }
}

/// A generator chosen at run time, as a concrete type the policy's generic method takes.
private struct AnyGenerator: RandomNumberGenerator {
    var base: any RandomNumberGenerator
    mutating func next() -> UInt64 { base.next() }
}
