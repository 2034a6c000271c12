import Foundation
import HandoverSchema
import TestPeers
import HandoverServer
import NIOCore
import NIOPosix
import Testing

/// Webhook deliveries follow the Standard Webhooks specification, checked by its own Python
/// library (`standardwebhooks`, which `.ci/run` installs), not by our code.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct StandardWebhooksTests {
    /// The example of the specification's reference libraries.
    @Test func theFixedVectorSigns() {
        let signature = WebhookSignature.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                                   body: Data(#"{"test": 2432232314}"#.utf8), secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test(arguments: ["0123456789abcdef-secret", "whsec_short", "whsec_" + String(repeating: "A", count: 200), "whsec_not base64!"])
    func aSecretNotInStandardFormIsRefused(secret: String) async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "https://mdm.example.com/h", "events": ["run.failed"], "secret": secret],
                                               key: test.adminKey)
            #expect(reply.status == 422 && reply.json["field"] as? String == "secret", "\(reply.text)")
        }
    }

    @Test func deliveriesVerifyWithTheStandardLibraryAndRotationSignsWithBoth() async throws {
        let receiver = try await WebhookReceiver.start()
        // Signed at the real time: the library refuses timestamps five minutes off.
        try await TestServer.with(.sqlite, clock: ManualServerClock(Date())) { test in
            let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["run.failed", "device.out_of_service"]],
                                              key: test.adminKey)
            let first = try #require(hook.json["secret"] as? String)
            let hookID = try #require((hook.json["webhook"] as? [String: Any])?["id"] as? String)
            try await Self.failARun(test, name: "Mail")
            #expect(try await test.server.deliverWebhooks() == 2)

            let rotated = try await test.request(.POST, "/api/v1/webhooks/\(hookID)/rotate-secret", key: test.adminKey)
            #expect(rotated.status == 200, "\(rotated.text)")
            let second = try #require(rotated.json["secret"] as? String)
            #expect(second != first && second.hasPrefix("whsec_"))
            try await Self.failARun(test, name: "Notes")
            #expect(try await test.server.deliverWebhooks() == 2)

            let deliveries = receiver.deliveries
            #expect(deliveries.count == 4)
            #expect(deliveries.prefix(2).allSatisfy { $0.isSigned(with: first) && !$0.isSigned(with: second) })
            #expect(deliveries.suffix(2).allSatisfy { $0.isSigned(with: first) && $0.isSigned(with: second) }, "both secrets sign during the overlap")
            #expect(deliveries.suffix(2).allSatisfy { $0.signature.split(separator: " ").count == 2 })
            try await Self.verifyWithStandardLibrary(deliveries.prefix(2), secret: first)
            try await Self.verifyWithStandardLibrary(deliveries.suffix(2), secret: second)
        }
        try await receiver.stop()
    }

    /// Receivers that accept a connection and never answer hold only their own deliveries until
    /// the request times out (10 s); a live receiver registered after them gets its event at once.
    @Test func aHungReceiverDoesNotHoldUpTheOthers() async throws {
        let receiver = try await WebhookReceiver.start()
        let hung = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }  // reads nothing, answers nothing
            .bind(host: "127.0.0.1", port: 0).get()
        try await TestServer.with(.sqlite) { test in
            for number in 1...4 {
                let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "http://127.0.0.1:\(hung.localAddress?.port ?? 0)/hook/\(number)",
                                                                                   "events": ["run.failed"]], key: test.adminKey)
                #expect(hook.status == 201, "\(hook.text)")
            }
            _ = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["run.failed"]], key: test.adminKey)
            try await Self.failARun(test, name: "Mail")
            let pass = Task { try await test.server.deliverWebhooks() }
            let started = ContinuousClock.now
            while receiver.deliveries.isEmpty, started.duration(to: .now) < .seconds(9) { try await Task.sleep(for: .milliseconds(20)) }
            let waited = started.duration(to: .now)
            #expect(receiver.deliveries.count == 1 && waited < .seconds(5), "the live receiver waited \(waited) behind hung ones")
            #expect(try await pass.value == 5)
        }
        try await hung.close()
        try await receiver.stop()
    }

    static func failARun(_ test: TestServer, name: String) async throws {
        try await test.registerTarget(name, deadline: 5, maxReissues: 0)
        let device = try await test.registerDevice("phone-\(name)")
        let apps = try await test.request(.GET, "/api/v1/apps", key: test.adminKey).array
        let app = try #require(apps.first { $0["name"] as? String == name }?["id"] as? String)
        let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        test.clock.advance(by: 6)
        try await test.server.fireDeadlines()
    }

    /// Runs the `standardwebhooks` library over the deliveries: each must verify as received,
    /// and must fail once its timestamp or body is changed.
    static func verifyWithStandardLibrary(_ deliveries: some Collection<WebhookReceiver.Received>, secret: String) async throws {
        guard await ChildProcess.succeeds(["python3", "-c", "import standardwebhooks"]) else {
            print("SKIP standardwebhooks verification: python3 with the standardwebhooks package is not installed (bash .ci/run installs it)")
            return
        }
        let cases = deliveries.map { ["id": $0.id, "timestamp": $0.timestamp, "signature": $0.signature, "body": String(decoding: $0.body, as: UTF8.self)] }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try JSONSerialization.data(withJSONObject: ["secret": secret, "cases": cases]).write(to: file)
        let script = """
            import json, sys
            from standardwebhooks.webhooks import Webhook, WebhookVerificationError
            data = json.load(open(sys.argv[1]))
            hook = Webhook(data["secret"])
            for case in data["cases"]:
                headers = {"webhook-id": case["id"], "webhook-timestamp": case["timestamp"], "webhook-signature": case["signature"]}
                hook.verify(case["body"], headers)
                for field, value in (("webhook-timestamp", str(int(case["timestamp"]) + 1)), ("webhook-id", case["id"] + "x")):
                    try:
                        hook.verify(case["body"], dict(headers, **{field: value}))
                        sys.exit("a changed " + field + " still verified")
                    except WebhookVerificationError:
                        pass
                try:
                    hook.verify(case["body"] + " ", headers)
                    sys.exit("a changed body still verified")
                except WebhookVerificationError:
                    pass
            print("standardwebhooks verified", len(data["cases"]))
            """
        let result = try await ChildProcess.run(["python3", "-c", script, file.path], mergingErrors: true)
        let text = result.outputText
        #expect(result.status == 0, "\(text)")
        print(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
