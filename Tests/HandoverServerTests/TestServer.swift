import AsyncHTTPClient
import Foundation
import HandoverConfiguration
import TestPeers
import HandoverServer
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Testing

/// Which database a test runs on. PostgreSQL runs only when `HANDOVER_TEST_POSTGRES_URL` is set
/// (CI sets it after starting PostgreSQL); otherwise those cases print why they were skipped.
enum TestDatabase: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The databases available here; prints the reason PostgreSQL is skipped, once.
    static var available: [TestDatabase] {
        if postgresURL == nil {
            skipNotice.printOnce()
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }

    private static let skipNotice = OnceNotice("SKIP PostgreSQL cases: HANDOVER_TEST_POSTGRES_URL is not set (bash .ci/run sets it)")
}

final class OnceNotice: Sendable {
    private let message: String
    private let printed = NIOLockedValueBox(false)
    init(_ message: String) { self.message = message }
    func printOnce() {
        if printed.withLockedValue({ let was = $0; $0 = true; return !was }) { print(message) }
    }
}

/// A Handover server on an ephemeral loopback port with a manual clock, and a real HTTP client.
final class TestServer: Sendable {
    let server: HandoverServer
    let clock: ManualServerClock
    let adminKey: String
    let client: HTTPClient
    let dataDirectory: URL
    let databaseURL: String?

    static let logger: Logger = {
        var logger = Logger(label: "handover.test")
        logger.logLevel = .error
        return logger
    }()

    /// Starts a server on a fresh database. To start a second instance on the same database (the
    /// two-instance tests), pass the first as `sharing`.
    static func start(_ database: TestDatabase, publicURL: String? = nil, sharing other: TestServer? = nil,
                      developerMode: Bool = false, testerSimulator: (any TesterSimulator)? = nil,
                      clock: ManualServerClock? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.schedulerInterval = nil
        configuration.allowsLoopbackWebhooks = true
        configuration.developerMode = developerMode
        configuration.rateLimitedDelay = .zero  // tests count 429s; the delay is the benchmark's (scripts/bench-flood.py)
        // A test's run starts are answered, however loaded the machine running the suite is;
        // AdmissionTests turn admission control on with a target of their own.
        configuration.queueTarget = nil
        let directory = other?.dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("handover-test-\(UUID().uuidString)")
        configuration.dataDirectory = directory
        if let publicURL { configuration.publicURL = try ServerConfiguration.parsePublicURL(publicURL, setting: "test") }
        if database == .postgres {
            if let shared = other?.databaseURL {
                configuration.databaseURL = shared
            } else {
                configuration.databaseURL = try await PostgresTestDatabase.fresh()
            }
        }
        configure(&configuration)
        let clock = other?.clock ?? clock ?? ManualServerClock()
        let server = try await HandoverServer.start(configuration, clock: clock, logger: logger, testerSimulator: testerSimulator)
        let adminKey: String
        if let other { adminKey = other.adminKey } else { adminKey = try await server.createAPIKey(name: "test admin", scope: .admin) }
        // As many connections as a burst of devices opens (AsyncHTTPClient keeps 8 by default): a
        // request that waits for a pooled connection counts that wait against its 30 s, and with
        // the whole suite on two cores a 90-callback burst through 8 connections once ran out of it.
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
        let test = TestServer(server: server, clock: clock, adminKey: adminKey, client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration),
                              dataDirectory: directory, databaseURL: configuration.databaseURL)
        StartedServers.current?.add(test)
        return test
    }

    /// Starts a server, runs `body` with it, and stops it whether `body` returns or throws (a
    /// failed `#require` included), so no client or server outlives its test.
    static func with<T>(_ database: TestDatabase, publicURL: String? = nil, developerMode: Bool = false,
                        testerSimulator: (any TesterSimulator)? = nil, clock: ManualServerClock? = nil,
                        configure: (inout ServerConfiguration) -> Void = { _ in },
                        _ body: (TestServer) async throws -> T) async throws -> T {
        let test = try await start(database, publicURL: publicURL, developerMode: developerMode, testerSimulator: testerSimulator,
                                   clock: clock, configure: configure)
        let result: T
        do {
            result = try await body(test)
        } catch {
            try? await test.stop()
            throw error
        }
        try await test.stop()
        return result
    }

    private init(server: HandoverServer, clock: ManualServerClock, adminKey: String, client: HTTPClient, dataDirectory: URL,
                 databaseURL: String?) {
        self.databaseURL = databaseURL
        self.server = server
        self.clock = clock
        self.adminKey = adminKey
        self.client = client
        self.dataDirectory = dataDirectory
    }

    /// Stops the client and the server; a second call does nothing.
    func stop() async throws {
        guard stopped.withLockedValue({ let was = $0; $0 = true; return !was }) else { return }
        try await client.shutdown()
        try await server.shutdown()
    }

    private let stopped = NIOLockedValueBox(false)

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var array: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body) as? [[String: Any]]) ?? [] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request to the server; `path` may also be a full URL.
    func request(_ method: HTTPMethod, _ path: String, json: Any? = nil, key: String? = nil,
                 headers: [(String, String)] = [], body: String? = nil) async throws -> Reply {
        let url = path.hasPrefix("http") ? path : server.baseURL.absoluteString + path
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            let data = try JSONSerialization.data(withJSONObject: json)
            request.body = .bytes(ByteBuffer(data: data))
        }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 10 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }

    /// Registers a target app and returns its id.
    @discardableResult
    func registerTarget(_ name: String, deadline: Int = 20, maxReissues: Int = 1, hosts: [String] = []) async throws -> String {
        let reply = try await request(.POST, "/api/v1/apps", json: [
            "name": name, "appIDs": ["ABCDE12345.com.example.\(name.lowercased())"],
            "logoutAction": "https://\(name.lowercased()).example.com/logout", "deadlineSeconds": deadline, "maxReissues": maxReissues,
            "allowedCallbackHosts": hosts,
        ], key: adminKey)
        #expect(reply.status == 201, "\(reply.text)")
        return reply.json["id"] as? String ?? ""
    }

    /// Registers a device (at `site`, when given) and returns its id and key.
    func registerDevice(_ name: String = "ward-7-phone-3", site: String? = nil) async throws -> (id: String, key: String) {
        var body: [String: Any] = ["name": name]
        if let site { body["site"] = site }
        let reply = try await request(.POST, "/api/v1/devices", json: body, key: adminKey)
        #expect(reply.status == 201, "\(reply.text)")
        let device = reply.json["device"] as? [String: Any]
        return (device?["id"] as? String ?? "", reply.json["key"] as? String ?? "")
    }
}

/// Fresh PostgreSQL databases for tests, made from `HANDOVER_TEST_POSTGRES_URL`.
enum PostgresTestDatabase {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Creates an empty database and returns its URL.
    static func fresh() async throws -> String {
        guard let base = TestDatabase.postgresURL, let slash = base.lastIndex(of: "/") else {
            throw Unavailable(description: "HANDOVER_TEST_POSTGRES_URL is not set")
        }
        let name = "handover_test_\(UUID().uuidString.prefix(8).lowercased())"
        let created = try await ChildProcess.run(["psql", base, "-q", "-c", "CREATE DATABASE \(name)"])
        guard created.status == 0 else { throw Unavailable(description: "psql could not create database \(name)") }
        return String(base[...slash]) + name
    }
}
