import Foundation
import TestPeers
import HandoverServer
import Testing

/// The webhook outbox against receivers that answer with bodies without end, never answer, or
/// stop existing (issue 36, findings 1 and 2): a receiver costs the server a few KB and its own
/// lanes, never the others' time, and an attempt is counted before it goes out.
@Suite("Webhook outbox hardening", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct WebhookOutboxHardeningTests {
    /// The server's resident memory, from `/proc/self/status` (the test server runs in this process).
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    static func webhook(_ test: TestServer, _ url: String, events: [String] = ["run.failed"]) async throws -> String {
        let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": url, "events": events], key: test.adminKey)
        #expect(hook.status == 201, "\(hook.text)")
        return try #require((hook.json["webhook"] as? [String: Any])?["id"] as? String)
    }

    static func deliveries(_ test: TestServer, _ hook: String) async throws -> [[String: Any]] {
        try await test.request(.GET, "/api/v1/webhooks/\(hook)/deliveries", key: test.adminKey).array
    }

    /// Before: the whole reply was read into memory (1.5 GB took the server from 81 MB to 1.5 GB;
    /// an endless one reached 3.6 GB in the 10 s timeout), and an error reply was copied whole
    /// before it was cut. Now at most 8 KB is read, and the attempt fails naming the cause.
    @Test(arguments: [HostilePeer.Answer.endless, .huge, .longError, .trickle])
    func aReplyTooLongFailsItsAttemptAndIsNeverReadWhole(answer: HostilePeer.Answer) async throws {
        guard await BackendPeers.pythonIsAvailable() else { return }
        let peer = try await HostilePeer()
        defer { peer.stop() }
        try await TestServer.with(.sqlite) { test in
            let hook = try await Self.webhook(test, peer.url(answer, "/hook"))
            try await StandardWebhooksTests.failARun(test, name: "Mail")
            let before = Self.residentBytes()
            #expect(try await test.server.deliverWebhooks() == 1)
            let grown = Self.residentBytes() - before
            let delivery = try #require(try await Self.deliveries(test, hook).first)
            #expect(delivery["status"] as? String == "pending" && delivery["attempts"] as? Int == 1, "\(delivery)")
            let error = delivery["lastError"] as? String ?? ""
            #expect(error.contains("reply body over 8192 bytes"), "\(delivery)")
            #expect(delivery["lastStatusCode"] as? Int == (answer == .longError ? 500 : 200), "\(delivery)")
            #expect(grown < 64 << 20, "the server grew by \(grown >> 20) MB reading one reply")
            #expect(try await peer.count(answer) == 1)
        }
    }

    /// Before: the attempt was counted only once it finished, so a crash during it (the endless
    /// body killed the server) left `attempts = 0`, and the same delivery killed it again after
    /// every restart. Now the lease counts it: while the request is on its way it already shows.
    @Test func anAttemptIsCountedBeforeItGoesOut() async throws {
        guard await BackendPeers.pythonIsAvailable() else { return }
        let peer = try await HostilePeer()
        defer { peer.stop() }
        try await TestServer.with(.sqlite) { test in
            let hook = try await Self.webhook(test, peer.url(.hang, "/hook"))
            try await StandardWebhooksTests.failARun(test, name: "Mail")
            let pass = Task { try await test.server.deliverWebhooks() }
            while try await peer.count(.hang) == 0 { try await Task.sleep(for: .milliseconds(20)) }
            let inFlight = try #require(try await Self.deliveries(test, hook).first)
            #expect(inFlight["attempts"] as? Int == 1 && inFlight["status"] as? String == "pending", "counted while on its way: \(inFlight)")
            #expect(try await pass.value == 1)
            let after = try #require(try await Self.deliveries(test, hook).first)
            #expect(after["attempts"] as? Int == 1 && (after["lastError"] as? String)?.contains("no whole reply within 10 s") == true, "\(after)")
        }
    }

    /// Before: a pass sent up to 16 deliveries at once and waited for all of them, so a receiver
    /// that hung until the timeout took every slot: a healthy receiver's 40 events arrived at a
    /// median of 21.8 s. Now each receiver has its own lanes, and the background pass does not
    /// wait for them: the healthy receiver gets all 40 while the hung one still holds its two.
    @Test func aHangingReceiverHoldsOnlyItsOwnLanes() async throws {
        guard await BackendPeers.pythonIsAvailable() else { return }
        let peer = try await HostilePeer()
        defer { peer.stop() }
        let healthy = try await WebhookReceiver.start()
        try await TestServer.with(.sqlite, configure: { $0.schedulerInterval = .milliseconds(100) }) { test in
            _ = try await Self.webhook(test, peer.url(.hang, "/hook"), events: ["run.completed"])
            _ = try await Self.webhook(test, healthy.url, events: ["run.completed"])
            // Forty hand-overs complete: forty events for each receiver.
            let app = try await test.registerTarget("Mail")
            let first = ContinuousClock.now
            for index in 0..<40 {
                let device = try await test.registerDevice("phone-\(index)")
                let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: device.key)
                let link = try #require((run.json["items"] as? [[String: Any]])?.first?["link"] as? String)
                let success = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "ulc-success" }?.value)
                let reported = try await test.request(.POST, "/api/v1/logout-runs/\(run.json["id"] as? String ?? "")/callbacks",
                                                      json: ["url": success], key: device.key)
                #expect(reported.status == 200, "\(reported.text)")
            }
            let started = ContinuousClock.now
            while healthy.deliveries.count < 40, started.duration(to: .now) < .seconds(30) { try await Task.sleep(for: .milliseconds(20)) }
            let waited = started.duration(to: .now)
            let hung = try await peer.count(.hang)
            #expect(healthy.deliveries.count == 40, "the healthy receiver got \(healthy.deliveries.count) of 40")
            #expect(waited < .seconds(8), "the healthy receiver's 40 events took \(waited) behind a hung one")
            // Two lanes, each attempt ending after its 10 s (on a busy machine the next two may have begun).
            let allowed = 2 * (1 + Int(first.duration(to: .now) / .seconds(10)))
            #expect(hung <= allowed, "the hung receiver holds at most its two lanes (\(hung) requests, \(allowed) allowed)")
        }
        try await healthy.stop()
    }
}

/// Whether python3 runs here (the loopback peers are Python scripts); prints why a test skips.
enum BackendPeers {
    static func pythonIsAvailable() async -> Bool { await PythonPeer.canImport("http.server", skipping: "the hostile peer") }
}
