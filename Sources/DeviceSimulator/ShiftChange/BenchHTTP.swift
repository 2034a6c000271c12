import AsyncHTTPClient
import Foundation
import HandoverClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The load generator's HTTP: AsyncHTTPClient with a bounded pool, every request timed, and
/// every `429` counted (``rateLimited``): each request of a storm carries a valid key, and a valid
/// key is never throttled.
final class BenchHTTP: Sendable {
    /// An answer and how long it took.
    struct Answer: Sendable {
        var status: Int
        var body: ByteBuffer
        var milliseconds: Double
        /// `Retry-After` in seconds, when the answer had one in that form.
        var retryAfterSeconds: Int?
        /// When the request that got this answer was sent (with ``BenchHTTP/sendWaitingOutBusy(_:_:key:json:)``,
        /// the last try's).
        var sent: ContinuousClock.Instant = .now

        var isSuccess: Bool { (200..<300).contains(status) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try LogoutRunView.decoder.decode(type, from: Data(body.readableBytesView))
        }
    }

    let client: HTTPClient
    /// Answers received, and of them `429 Too Many Requests` and `503 Service Unavailable`.
    private let counts = NIOLockedValueBox((answers: 0, rateLimited: 0, busy: 0))
    /// How long a launcher waits out a busy server: the SDK's own policy.
    private let busyPolicy = BusyServerPolicy()

    /// How many requests were answered.
    var answers: Int { counts.withLockedValue { $0.answers } }
    /// How many answers were `429 Too Many Requests`.
    var rateLimited: Int { counts.withLockedValue { $0.rateLimited } }
    /// How many answers were `503 Service Unavailable` (the server shedding new work).
    var busy: Int { counts.withLockedValue { $0.busy } }

    init(connections: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func send(_ method: HTTPMethod, _ url: String, key: String? = nil, json: Data? = nil,
              headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Accept", value: "application/json")
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json))
        }
        let started = ContinuousClock.now
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        let took = started.duration(to: .now)
        counts.withLockedValue {
            $0.answers += 1
            if response.status == .tooManyRequests { $0.rateLimited += 1 }
            if response.status == .serviceUnavailable { $0.busy += 1 }
        }
        return Answer(status: Int(response.status.code), body: body,
                      milliseconds: Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15,
                      retryAfterSeconds: response.headers.first(name: "Retry-After").flatMap { Int($0) }, sent: started)
    }

    /// Sends the request, and while the server answers `503` with `Retry-After` (it is shedding
    /// new work), waits as the SDK does (``BusyServerPolicy``: the server's delay plus full
    /// jitter, 300 s in all) and sends it again. The last answer, and how many tries it took.
    func sendWaitingOutBusy(_ method: HTTPMethod, _ url: String, key: String? = nil, json: Data? = nil,
                            headers: [(String, String)] = []) async throws -> (answer: Answer, tries: Int) {
        var generator = SystemRandomNumberGenerator()
        var waited = Duration.zero
        var tries = 1
        while true {
            let answer = try await send(method, url, key: key, json: json, headers: headers)
            guard answer.status == 503, let seconds = answer.retryAfterSeconds,
                  let wait = busyPolicy.wait(afterAttempt: tries, retryAfter: .seconds(seconds), waitedSoFar: waited, using: &generator) else {
                return (answer, tries)
            }
            try await Task.sleep(for: wait)
            waited += wait
            tries += 1
        }
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}
