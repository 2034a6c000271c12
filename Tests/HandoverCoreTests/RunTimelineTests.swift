import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Testing

/// A run's timeline marks a delivery as a problem once an attempt has failed, not while the
/// first one is on its way: the outboxes count an attempt when they lease it.
@Suite struct RunTimelineTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func timeline(backend: RunTimeline.BackendDelivery, webhook: RunTimeline.WebhookDelivery) -> RunTimeline {
        let run = LogoutRunView(id: UUID(), deviceID: UUID(), status: .running, createdAt: start, items: [])
        return RunTimeline(run: run, device: "ward-7-phone-1", reissues: [], backends: [backend], webhooks: [webhook])
    }

    static func backend(attempts: Int, error: String? = nil) -> RunTimeline.BackendDelivery {
        .init(app: "Notes", clientID: "com.example.notes", state: .pending, attempts: attempts, createdAt: start,
              deliveredAt: nil, lastStatusCode: nil, lastError: error)
    }

    static func webhook(attempts: Int, status: Int? = nil, error: String? = nil) -> RunTimeline.WebhookDelivery {
        .init(event: "run.failed", url: "https://hooks.example.com/handover", status: .pending, attempts: attempts, createdAt: start,
              deliveredAt: nil, lastStatusCode: status, lastError: error)
    }

    @Test func aFirstAttemptOnItsWayIsNotAProblem() {
        let entries = Self.timeline(backend: Self.backend(attempts: 1), webhook: Self.webhook(attempts: 1)).entries
        #expect(entries.filter { $0.kind == .backend || $0.kind == .webhook }.allSatisfy { !$0.isProblem }, "\(entries)")
    }

    @Test func aFailedAttemptIsAProblemAndSaysWhy() {
        let entries = Self.timeline(backend: Self.backend(attempts: 1, error: "connection refused"),
                                    webhook: Self.webhook(attempts: 2, error: "connection refused")).entries
        let deliveries = entries.filter { $0.kind == .backend || $0.kind == .webhook }
        #expect(deliveries.count == 2 && deliveries.allSatisfy(\.isProblem), "\(entries)")
        #expect(deliveries.allSatisfy { $0.text.hasSuffix("(connection refused)") }, "\(deliveries.map(\.text))")
        let answered = Self.timeline(backend: Self.backend(attempts: 1), webhook: Self.webhook(attempts: 1, status: 500)).entries
        #expect(answered.first { $0.kind == .webhook }?.isProblem == true)
        #expect(answered.first { $0.kind == .webhook }?.text.hasSuffix("(HTTP 500)") == true)
    }
}
