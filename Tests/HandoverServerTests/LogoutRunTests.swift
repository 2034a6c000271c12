import AsyncHTTPClient
import Foundation
import HandoverServer
import LinkCallbacks
import NIOCore
import Testing

/// The main job end to end: a device starts a run, apps answer through callback links, the
/// scheduler reissues and escalates, webhooks go out signed, and SSE shows it live.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct LogoutRunTests {
    struct Run {
        var id: String
        var items: [[String: Any]]
        func link(_ app: String) -> String? {
            items.first { $0["app"] as? String == app }?["link"] as? String
        }
    }

    static func startRun(_ test: TestServer, device: (id: String, key: String)) async throws -> Run {
        let reply = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key)
        #expect(reply.status == 201, "\(reply.text)")
        return Run(id: reply.json["id"] as? String ?? "", items: reply.json["items"] as? [[String: Any]] ?? [])
    }

    /// The callback URL the app would open, turned into a URL on this test server.
    static func callback(_ link: String, _ outcome: String, on test: TestServer) throws -> String {
        let ulc = try UniversalLinkCallback(parsing: link)
        let url = outcome == "success" ? ulc.success : ulc.error
        return url.absoluteString.replacingOccurrences(of: test.server.publicURL.absoluteString, with: test.server.baseURL.absoluteString)
    }

    /// A signing secret an admin chose: Standard Webhooks' form.
    static let fixedSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    @Test(arguments: TestDatabase.available)
    func aFullRunRecordsEachAnswerOnceAndReportsCompletionBySignedWebhook(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let receiver = try await WebhookReceiver.start()
        let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["run.completed", "run.failed"]],
                                          key: test.adminKey)
        #expect(hook.status == 201)
        let secret = try #require(hook.json["secret"] as? String)
        for name in ["Notes", "Chart", "Scanner"] { try await test.registerTarget(name) }
        let device = try await test.registerDevice()
        let run = try await Self.startRun(test, device: device)
        #expect(run.items.count == 3)

        // Every link is a ULC whose callbacks are on the public URL with a nonce.
        for item in run.items {
            let ulc = try UniversalLinkCallback(parsing: try #require(item["link"] as? String))
            #expect(ulc.success.absoluteString.hasPrefix(test.server.publicURL.absoluteString + "/ulc/cb/\(run.id.lowercased())/"))
            #expect(ulc.success.absoluteString.contains("?n="))
            #expect(try CallbackPolicy(allowsLoopbackHTTP: true).evaluate(ulc.text) == .universalLinkCallback(ulc))
        }

        // Notes: the browser fallback page.
        let notes = try Self.callback(try #require(run.link("Notes")), "success", on: test)
        var page = try await test.request(.GET, notes)
        #expect(page.status == 200)
        #expect(page.text.contains("Signed out of Notes."))
        #expect(page.headers.first(name: "Content-Type")?.contains("text/html") == true)

        // A replay records nothing and says so; a wrong nonce is not found.
        page = try await test.request(.GET, notes)
        #expect(page.status == 409)
        #expect(page.text.contains("already") || page.text.contains("used"))
        page = try await test.request(.GET, notes.replacingOccurrences(of: "?n=", with: "?n=AAAA"))
        #expect(page.status == 404)
        let chart = try Self.callback(try #require(run.link("Chart")), "success", on: test)
        page = try await test.request(.GET, chart.replacingOccurrences(of: "/success?", with: "/error?").replacingOccurrences(of: "?n=", with: "?n=x"))
        #expect(page.status == 404)

        // Chart: reported by the launcher, which received the callback as a universal link.
        let chartURL = try UniversalLinkCallback(parsing: try #require(run.link("Chart"))).success.absoluteString
        var reply = try await test.request(.POST, "/api/v1/logout-runs/\(run.id)/callbacks", json: ["url": chartURL], key: device.key)
        #expect(reply.status == 200, "\(reply.text)")
        reply = try await test.request(.POST, "/api/v1/logout-runs/\(run.id)/callbacks", json: ["url": chartURL], key: device.key)
        #expect(reply.status == 409)

        // Scanner: last one; the run completes.
        page = try await test.request(.GET, try Self.callback(try #require(run.link("Scanner")), "success", on: test))
        #expect(page.status == 200)
        reply = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: device.key)
        #expect(reply.json["status"] as? String == "completed")
        let items = reply.json["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["status"] as? String } == ["succeeded", "succeeded", "succeeded"])
        #expect(items.map { $0["reportedBy"] as? String } == ["browser", "launcher", "browser"])
        #expect(items.allSatisfy { $0["link"] == nil })

        // The webhook: one delivery, signed with the secret.
        #expect(try await test.server.deliverWebhooks() == 1)
        let delivery = try #require(receiver.deliveries.first)
        #expect(delivery.event == "run.completed")
        #expect(secret.hasPrefix("whsec_"))
        #expect(delivery.isSigned(with: secret))
        var altered = delivery
        altered.body += Data(" ".utf8)
        #expect(!altered.isSigned(with: secret))
        let deliveries = try await test.request(.GET, "/api/v1/webhooks/\(hook.json["webhook"].flatMap { ($0 as? [String: Any])?["id"] as? String } ?? "")/deliveries",
                                                key: test.adminKey)
        #expect(deliveries.array.first?["status"] as? String == "delivered")
        try await receiver.stop()
        try await test.stop()
    }

    /// A shift change brings hundreds of deadlines due at once: one pass fires them all, not the
    /// first 100 (which left the rest a whole pass late).
    @Test(arguments: TestDatabase.available)
    func onePassFiresEveryDueDeadlineEvenPastOneBatch(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        for index in 1...3 { try await test.registerTarget("Stalling-\(index)", deadline: 5, maxReissues: 2) }
        for index in 1...40 {
            let device = try await test.registerDevice("storm-phone-\(index)")
            _ = try await Self.startRun(test, device: device)
        }
        test.clock.advance(by: 6)
        #expect(try await test.server.fireDeadlines() == (120, 0))
        #expect(try await test.server.fireDeadlines() == (0, 0))
    }

    @Test(arguments: TestDatabase.available)
    func aStalledItemIsReissuedThenTimedOutAndTheDeviceEscalated(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let receiver = try await WebhookReceiver.start()
        let hook = try await test.request(.POST, "/api/v1/webhooks", json: [
            "url": receiver.url, "events": ["run.failed", "device.out_of_service"], "secret": Self.fixedSecret,
        ], key: test.adminKey)
        #expect(hook.status == 201)
        try await test.registerTarget("Silent", deadline: 20, maxReissues: 2)
        let device = try await test.registerDevice()
        let run = try await Self.startRun(test, device: device)
        let firstLink = try #require(run.link("Silent"))

        // Before the deadline nothing fires.
        test.clock.advance(by: 19)
        #expect(try await test.server.fireDeadlines() == (0, 0))

        // Each deadline reissues with a new nonce, twice.
        var links = [firstLink]
        for attempt in 2...3 {
            test.clock.advance(by: 21)
            #expect(try await test.server.fireDeadlines() == (1, 0))
            let reply = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: device.key)
            let item = try #require((reply.json["items"] as? [[String: Any]])?.first)
            #expect(item["attempts"] as? Int == attempt)
            #expect(item["status"] as? String == "pending")
            let link = try #require(item["link"] as? String)
            #expect(!links.contains(link))
            links.append(link)
        }
        // A second pass at the same moment does not fire again.
        #expect(try await test.server.fireDeadlines() == (0, 0))

        // Out of resends: timed out, run failed, device out of service, two signed webhooks.
        test.clock.advance(by: 21)
        #expect(try await test.server.fireDeadlines() == (0, 1))
        let reply = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: device.key)
        #expect(reply.json["status"] as? String == "failed")
        #expect((reply.json["items"] as? [[String: Any]])?.first?["status"] as? String == "timed_out")
        let deviceView = try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey)
        #expect(deviceView.json["status"] as? String == "out_of_service")

        // The receiver fails the first attempt: the dispatcher backs off and retries.
        receiver.respond(with: [500])
        #expect(try await test.server.deliverWebhooks() == 2)
        #expect(receiver.deliveries.count == 1)
        #expect(try await test.server.deliverWebhooks() == 0)  // the failed one waits for its back-off
        test.clock.advance(by: 61)
        #expect(try await test.server.deliverWebhooks() == 1)
        #expect(Set(receiver.deliveries.map(\.event)) == ["run.failed", "device.out_of_service"])
        for delivery in receiver.deliveries {
            #expect(delivery.isSigned(with: Self.fixedSecret))
        }

        // A late callback after the timeout records nothing.
        let late = try await test.request(.GET, try Self.callback(firstLink, "success", on: test))
        #expect(late.status == 409)
        try await receiver.stop()
        try await test.stop()
    }

    @Test(arguments: TestDatabase.available)
    func anErrorCallbackFailsTheRun(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Failing")
        let device = try await test.registerDevice()
        let run = try await Self.startRun(test, device: device)
        let page = try await test.request(.GET, try Self.callback(try #require(run.link("Failing")), "error", on: test))
        #expect(page.status == 200)
        #expect(page.text.contains("could not sign out"))
        let reply = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: test.adminKey)
        #expect(reply.json["status"] as? String == "failed")
        try await test.stop()
    }

    @Test(arguments: TestDatabase.available)
    func theEventStreamShowsEachChangeLive(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Notes")
        try await test.registerTarget("Chart")
        let device = try await test.registerDevice()
        let run = try await Self.startRun(test, device: device)
        let events = try await EventStream.open(test, "/api/v1/logout-runs/\(run.id)/events", key: device.key)
        let first = try await events.next()
        #expect(first["status"] as? String == "running")
        _ = try await test.request(.GET, try Self.callback(try #require(run.link("Notes")), "success", on: test))
        let second = try await events.next()
        #expect((second["items"] as? [[String: Any]])?.first?["status"] as? String == "succeeded")
        _ = try await test.request(.GET, try Self.callback(try #require(run.link("Chart")), "success", on: test))
        let third = try await events.next()
        #expect(third["status"] as? String == "completed")
        await events.close()
        try await test.stop()
    }
}

/// Reads `event: run` messages from a Server-Sent Events response.
final class EventStream: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var buffer = ""

    private init(iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }

    static func open(_ test: TestServer, _ path: String, key: String) async throws -> EventStream {
        var request = HTTPClientRequest(url: test.server.baseURL.absoluteString + path)
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await test.client.execute(request, timeout: .seconds(30))
        #expect(response.status == .ok)
        #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
        return EventStream(iterator: response.body.makeAsyncIterator())
    }

    /// The next run snapshot.
    func next() async throws -> [String: Any] {
        while true {
            if let end = buffer.range(of: "\n\n") {
                let message = String(buffer[..<end.lowerBound])
                buffer.removeSubrange(..<end.upperBound)
                guard let data = message.split(separator: "\n").first(where: { $0.hasPrefix("data: ") })?.dropFirst(6) else { continue }
                return (try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
            }
            guard let chunk = try await iterator.next() else { throw CancellationError() }
            buffer += String(buffer: chunk)
        }
    }

    func close() async {}
}
