import APNs
import APNsTestServer
import AsyncHTTPClient
import Crypto
import Foundation
import NIOSSL
import Testing

/// A clock both the client's provider token and the test server read; tests move it.
final class TestTime: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { current = start }
    var now: Date { lock.withLock { current } }
    func advance(minutes: Double) { lock.withLock { current = current.addingTimeInterval(minutes * 60) } }
    var read: @Sendable () -> Date { { [self] in now } }
}

/// Records the waits the client asks for, and returns at once.
final class SleepRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Duration] = []
    var sleeps: [Duration] { lock.withLock { recorded } }
    var sleep: @Sendable (Duration) async throws -> Void { { [self] duration in lock.withLock { recorded.append(duration) } } }
}

/// A test server, an HTTP client that trusts it, a registered key and a provider token.
struct Harness {
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"
    static let deviceToken = String(repeating: "ab", count: 32)
    static let topic = "com.example.handover"
    static let payload = Data(#"{"aps":{"alert":"Approve sign-in?"},"op":"v1.p.e30"}"#.utf8)

    let server: APNsTestServer
    let httpClient: HTTPClient
    let time: TestTime
    let key: P256.Signing.PrivateKey
    let token: APNsProviderToken
    let sleeper = SleepRecorder()

    func client(attempts: Int = 3, token: APNsProviderToken? = nil, baseURL: URL? = nil, timeout: Duration = .seconds(10)) -> APNsClient {
        APNsClient(httpClient: httpClient, token: token ?? self.token, environment: APNsEnvironment(baseURL: baseURL ?? server.baseURL),
                   retryPolicy: APNsRetryPolicy(maximumAttempts: attempts, initialBackoff: .seconds(1), multiplier: 2),
                   timeout: timeout, sleep: sleeper.sleep)
    }

    /// Sends the fixture payload to `deviceToken`.
    func send(_ deviceToken: String = Harness.deviceToken, client: APNsClient? = nil, payload: Data = Harness.payload) async throws(APNsError) -> APNsOutcome {
        try await (client ?? self.client()).send(deviceToken: deviceToken, payload: payload, topic: Self.topic)
    }

    static func run(serverClockOffsetMinutes: Double = 0, _ body: (Harness) async throws -> Void) async throws {
        let time = TestTime()
        let server = try await APNsTestServer.start(now: { time.now.addingTimeInterval(serverClockOffsetMinutes * 60) })
        let key = P256.Signing.PrivateKey()
        server.registerKey(keyID: keyID, teamID: teamID, publicKey: key.publicKey)
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton,
                                    configuration: HTTPClient.Configuration(tlsConfiguration: server.clientTLSConfiguration))
        let token = try APNsProviderToken(privateKey: key, keyID: keyID, teamID: teamID, now: time.read)
        let harness = Harness(server: server, httpClient: httpClient, time: time, key: key, token: token)
        do {
            try await body(harness)
        } catch {
            try? await httpClient.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await httpClient.shutdown()
        try await server.shutdown()
    }
}

/// Decodes a JWT part.
func jwtPart(_ jwt: String, _ index: Int) throws -> [String: Any] {
    var text = String(jwt.split(separator: ".")[index]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    let data = try #require(Data(base64Encoded: text))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}
