import Foundation
import HandoverProtocol
import Testing

@Suite(.timeLimit(.minutes(5))) struct StateTests {
    /// The names the API, the database and the SDK share: changing one breaks every stored row and
    /// every app in the field, so they are pinned here.
    @Test func stateNamesAreThePublishedOnes() {
        #expect(LogoutItemState.allCases.map(\.rawValue) == ["pending", "succeeded", "failed", "timed_out"])
        #expect(LogoutRunState.allCases.map(\.rawValue) == ["running", "completed", "failed"])
        #expect(DeviceStatus.allCases.map(\.rawValue) == ["in_service", "out_of_service", "handing_over", "overdue", "retired"])
        #expect(WebhookDeliveryStatus.allCases.map(\.rawValue) == ["pending", "delivered", "failed"])
        #expect(AppLogoutOutcome.allCases.map(\.rawValue) == ["succeeded", "failed", "timed_out"])
        #expect(CallbackReporter.allCases.map(\.rawValue) == ["launcher", "browser"])
        #expect(TesterVerdictStatus.allCases.map(\.rawValue) == ["running", "passed", "failed"])
    }

    @Test func aPendingItemFinishesOnceAndIsReissuedWhileResendsAreLeft() {
        #expect(LogoutItemState.pending.on(.callback(.success)) == .finish(.succeeded))
        #expect(LogoutItemState.pending.on(.callback(.error)) == .finish(.failed))
        #expect(LogoutItemState.pending.on(.deadlinePassed(attempts: 1, maxReissues: 1)) == .reissue)
        #expect(LogoutItemState.pending.on(.deadlinePassed(attempts: 2, maxReissues: 1)) == .finish(.timedOut))
        for state in LogoutItemState.allCases where state.isFinished {
            #expect(state.on(.callback(.success)) == .refuse)
            #expect(state.on(.deadlinePassed(attempts: 0, maxReissues: 5)) == .refuse)
            #expect(state.outcome != nil)
        }
    }

    @Test func aRunIsRunningWhileAnyItemIsPendingThenCompletedOnlyWhenAllSucceeded() {
        #expect(LogoutRunState(items: [.succeeded, .pending]) == .running)
        #expect(LogoutRunState(items: [.succeeded, .succeeded]) == .completed)
        #expect(LogoutRunState(items: [.succeeded, .timedOut]) == .failed)
        #expect(LogoutRunState(items: [.failed]) == .failed)
    }

    @Test func aRunDecodesFromTheServersJSON() throws {
        let json = """
            {"id":"6F1C4D7E-2B0A-4E55-9C3B-0D8E6A1F2B3C","deviceID":"0A1B2C3D-4E5F-4A6B-8C7D-8E9FA0B1C2D3","status":"failed",
             "createdAt":0,"items":[{"id":"6F1C4D7E-2B0A-4E55-9C3B-0D8E6A1F2B3D","appID":"6F1C4D7E-2B0A-4E55-9C3B-0D8E6A1F2B3E",
             "app":"Notes","position":0,"status":"timed_out","attempts":2,"issuedAt":0,"deadlineAt":20,"reportedBy":"browser"}]}
            """
        let run = try JSONDecoder().decode(LogoutRunView.self, from: Data(json.utf8))
        #expect(run.status == .failed && !run.isRunning)
        #expect(run.items.first?.status == .timedOut)
        #expect(run.items.first?.reportedBy == .browser)
    }

    /// A backend is failing once an attempt has failed, not while its first attempt is on its way:
    /// the outbox counts an attempt when it leases the token, before the backend answers (the demo
    /// once printed "failing after 1 attempt" with no reason, for a first attempt in flight).
    @Test func aBackendIsFailingOnlyAfterAnAttemptFailed() {
        typealias Backend = LogoutRunView.Item.BackendLogout
        #expect(!Backend(clientID: "a", state: .pending, attempts: 0).isFailing)
        #expect(!Backend(clientID: "a", state: .pending, attempts: 1).isFailing, "the first attempt is in flight")
        #expect(Backend(clientID: "a", state: .pending, attempts: 1, lastError: "connection refused").isFailing)
        #expect(Backend(clientID: "a", state: .pending, attempts: 2, lastStatusCode: 503).isFailing)
        #expect(!Backend(clientID: "a", state: .delivered, attempts: 2, lastStatusCode: 200).isFailing)
        #expect(!Backend(clientID: "a", state: .failed, attempts: 8, lastError: "connection refused").isFailing)
    }
}
