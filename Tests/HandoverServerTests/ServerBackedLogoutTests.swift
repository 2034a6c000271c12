import Foundation
import HandoverClient
import HandoverServer
import LinkCallbacks
import NIOConcurrencyHelpers
import Testing

/// `ServerBackedLogout`'s decisions against a real server on loopback: which callbacks it
/// reports, and what it reports them as.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct ServerBackedLogoutTests {
    /// An opener that plays the apps: it answers each link at once with its success URL.
    final class AnsweringOpener: URLOpener, Sendable {
        let logout = NIOLockedValueBox<ServerBackedLogout?>(nil)
        let opened = NIOLockedValueBox<[URL]>([])

        func open(_ url: URL) async -> Bool {
            opened.withLockedValue { $0.append(url) }
            guard let ulc = try? UniversalLinkCallback(parsing: url.absoluteString), let logout = logout.withLockedValue({ $0 }) else {
                return false
            }
            _ = await logout.handleCallback(ulc.success)
            return true
        }
    }

    static func device(_ test: TestServer) async throws -> FleetServer {
        let device = try await test.registerDevice()
        return FleetServer(baseURL: test.server.baseURL, deviceID: try #require(UUID(uuidString: device.id)), deviceKey: device.key)
    }

    @Test func aSuccessFromAnAppStillSignedInIsReportedAsItsErrorCallbackSoTheServerRecordsFailed() async throws {
        let test = try await TestServer.start(.sqlite)
        try await test.registerTarget("Notes")
        try await test.registerTarget("Chart")
        let opener = AnsweringOpener()
        let logout = ServerBackedLogout(server: try await Self.device(test), opener: opener, pollInterval: .seconds(5),
                                        verifySignedOut: { app in app != "Chart" })
        opener.logout.withLockedValue { $0 = logout }
        let report = try await logout.run()
        #expect(report.entries.map(\.app) == ["Notes", "Chart"])
        #expect(report.entries.map(\.outcome) == [.succeeded, .failed])
        #expect(report.entries.map(\.attempts) == [1, 1])
        #expect(report.entries.last?.reason == "it answered success, but the user is still signed in")
        let run = try await test.request(.GET, "/api/v1/logout-runs/\(report.runID)", key: test.adminKey)
        #expect(run.json["status"] as? String == "failed")
        #expect((run.json["items"] as? [[String: Any]])?.compactMap { $0["reportedBy"] as? String } == ["launcher", "launcher"])
        try await test.stop()
    }

    @Test func aCallbackOfAnotherRunOrWithAWrongNonceIsNotReported() async throws {
        let test = try await TestServer.start(.sqlite)
        try await test.registerTarget("Notes")
        let logout = ServerBackedLogout(server: try await Self.device(test), opener: AnsweringOpener())
        let other = "\(test.server.publicURL.absoluteString)/ulc/cb/\(UUID().uuidString.lowercased())/\(UUID().uuidString.lowercased())/success?n=abc"
        #expect(await logout.handleCallback(try #require(URL(string: other))) == false)
        try await test.stop()
    }

    @Test func aRejectedRequestCarriesTheServersErrorAndReason() async throws {
        let test = try await TestServer.start(.sqlite)
        let server = FleetServer(baseURL: test.server.baseURL, deviceID: UUID(), deviceKey: "not-a-key")
        await #expect(throws: FleetServerError.self) { try await server.startRun() }
        do {
            _ = try await server.startRun()
        } catch let error as FleetServerError {
            guard case .rejected(let status, _, let reason) = error else { Issue.record("\(error)"); return }
            #expect(status == 401)
            #expect(!reason.isEmpty)
        }
        try await test.stop()
    }
}
