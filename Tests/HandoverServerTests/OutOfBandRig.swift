import APNsTestServer
import Clocks
import Crypto
import Foundation
import HandoverClient
import HandoverServer
import LinkCallbacks
import NIOConcurrencyHelpers
import OutOfBand
import Testing

/// Opens nothing; remembers what it was asked to open.
final class OpenedLinks: URLOpener, Sendable {
    private let opened = NIOLockedValueBox<[URL]>([])
    var urls: [URL] { opened.withLockedValue { $0 } }
    func open(_ url: URL) async -> Bool {
        opened.withLockedValue { $0.append(url) }
        return true
    }
}

/// Posts answers over real HTTP (URLSession) and keeps each body, for replay tests.
final class RecordingRedeemTransport: RedeemTransport, Sendable {
    private let inner = URLSessionRedeemTransport()
    private let bodies = NIOLockedValueBox<[Data]>([])
    var sent: [Data] { bodies.withLockedValue { $0 } }
    func post(_ body: Data, to url: URL) async throws -> RedeemResponse {
        bodies.withLockedValue { $0.append(body) }
        return try await inner.post(body, to: url)
    }
}

/// A phone with its own keys and an ``OutOfBandClient`` that redeems at the test server.
struct TestPhone {
    let keys = DeviceKeys.generate()
    let client: OutOfBandClient
    let opener = OpenedLinks()
    let transport = RecordingRedeemTransport()

    init(clock: ManualServerClock) throws {
        let policy = try CallbackPolicy(allowedHosts: HostAllowlist(["shop.example", "localhost"]), allowedCustomSchemes: ["shop"],
                                        allowsLoopbackHTTP: true)
        client = OutOfBandClient(configuration: OutOfBandConfiguration(redeemHosts: ["127.0.0.1", "localhost"], callbackPolicy: policy),
                                 keys: keys, transport: transport, opener: opener, clock: TestClock(), now: { clock.now() })
    }

    var deviceID: String { client.deviceID }
}

/// A test server with out-of-band operations, optionally pushing through a local APNs-protocol server.
struct OutOfBandRig {
    let test: TestServer
    let apns: APNsTestServer?
    static let topic = "com.example.handover"

    static func run(_ database: TestDatabase, push: Bool = false, _ body: (OutOfBandRig) async throws -> Void) async throws {
        let clock = ManualServerClock()
        var apns: APNsTestServer?
        var pushConfiguration: PushConfiguration?
        if push {
            let server = try await APNsTestServer.start(now: { clock.now() })
            let key = P256.Signing.PrivateKey()
            server.registerKey(keyID: "KEY1234567", teamID: "TEAM123456", publicKey: key.publicKey)
            let pem = server.certificatePEM
            pushConfiguration = PushConfiguration(privateKeyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456",
                                                  topic: topic, baseURL: server.baseURL, trustedCertificatesPEM: pem)
            apns = server
        }
        let test: TestServer
        do {
            test = try await TestServer.start(database, developerMode: true, clock: clock) { $0.push = pushConfiguration }
        } catch {
            try? await apns?.shutdown()
            throw error
        }
        let rig = OutOfBandRig(test: test, apns: apns)
        do { try await body(rig) } catch {
            try? await test.stop()
            try? await apns?.shutdown()
            throw error
        }
        try await test.stop()
        try await apns?.shutdown()
    }

    var clock: ManualServerClock { test.clock }

    func phone() throws -> TestPhone { try TestPhone(clock: clock) }

    /// Creates an operation; returns the reply.
    func create(_ type: String, user: String = "alice", dispatcher: String = "link", message: String? = nil,
                callbacks: [String: String]? = nil, expiresIn: Int? = nil, device: String? = nil) async throws -> TestServer.Reply {
        var body: [String: Any] = ["type": type, "user": user, "dispatcher": dispatcher]
        if let message { body["message"] = message }
        if let callbacks { body["callbacks"] = callbacks }
        if let expiresIn { body["expiresIn"] = expiresIn }
        if let device { body["device"] = device }
        return try await test.request(.POST, "/api/v1/operations", json: body, key: test.adminKey)
    }

    /// Creates an operation that must be accepted; returns its JSON.
    func created(_ type: String, user: String = "alice", dispatcher: String = "link", message: String? = nil,
                 callbacks: [String: String]? = nil, expiresIn: Int? = nil) async throws -> [String: Any] {
        let reply = try await create(type, user: user, dispatcher: dispatcher, message: message, callbacks: callbacks, expiresIn: expiresIn)
        #expect(reply.status == 201, "\(reply.text)")
        return reply.json
    }

    func status(_ id: String) async throws -> [String: Any] {
        try await test.request(.GET, "/api/v1/operations/\(id)", key: test.adminKey).json
    }

    /// Enrolls `phone` for `user` with an approved registration link.
    func enroll(_ phone: TestPhone, user: String = "alice") async throws {
        let operation = try await created("registration", user: user)
        let link = try #require(Self.link(operation))
        let pending = try phone.client.receive(link: link)
        let result = try await pending.approve()
        guard case .approved = result else { Issue.record("enrollment: \(result)"); return }
        #expect(try await status(operation["id"] as? String ?? "")["status"] as? String == "succeeded")
    }

    /// Registers the phone's APNs token with a signed request.
    func registerPushToken(_ phone: TestPhone, token: String) async throws -> TestServer.Reply {
        let registration = try PushTokenRegistration(deviceID: phone.deviceID, token: token, keys: phone.keys, now: clock.now())
        return try await test.request(.PUT, "/oob/devices/\(phone.deviceID)/push-token",
                                      body: String(decoding: registration.json(), as: UTF8.self))
    }

    static func link(_ operation: [String: Any]) -> URL? {
        ((operation["dispatch"] as? [String: Any])?["link"] as? String).flatMap(URL.init(string:))
    }

    /// Posts a raw answer body to the operation's redeem URL.
    func redeem(_ id: String, body: Data) async throws -> TestServer.Reply {
        try await test.request(.POST, "/oob/operations/\(id)/redeem", body: String(decoding: body, as: UTF8.self))
    }
}
