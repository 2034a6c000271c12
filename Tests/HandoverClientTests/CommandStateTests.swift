import Foundation
import HandoverClient
import Testing

@Suite(.timeLimit(.minutes(5))) struct CommandStateTests {
    @Test func receivedBecomesJournaled() throws {
        #expect(try CommandState.received.applying(.journal) == .journaled)
    }

    @Test func journaledStartsRunningAtAttemptOne() throws {
        #expect(try CommandState.journaled.applying(.start) == .running(attempt: 1))
    }

    @Test func retryCountsAttempts() throws {
        #expect(try CommandState.running(attempt: 2).applying(.retry) == .running(attempt: 3))
    }

    @Test func openingTheCallbackFollowsRunning() throws {
        #expect(try CommandState.running(attempt: 1).applying(.callbackOpened(.success)) == .callbackOpened(.success))
    }

    @Test func refusedCallbackGoesStraightToDone() throws {
        #expect(try CommandState.running(attempt: 1).applying(.callbackRefused(.success)) == .done(.success))
    }

    @Test func finishAfterCallbackOpenedIsDone() throws {
        #expect(try CommandState.callbackOpened(.error("x")).applying(.finish) == .done(.error("x")))
    }

    @Test func impossibleEventsAreErrorsNotTraps() {
        #expect(throws: CommandTransitionError.self) { try CommandState.received.applying(.start) }
        #expect(throws: CommandTransitionError.self) { try CommandState.journaled.applying(.finish) }
        #expect(throws: CommandTransitionError.self) { try CommandState.done(.success).applying(.start) }
        #expect(throws: CommandTransitionError.self) { try CommandState.callbackOpened(.success).applying(.retry) }
        #expect(throws: CommandTransitionError.self) { try CommandState.running(attempt: 1).applying(.journal) }
    }

    @Test func recoveryRerunsUnfinishedWorkAndKeepsOpenedCallbacksDone() {
        #expect(CommandState.journaled.recovered == .journaled)
        #expect(CommandState.running(attempt: 3).recovered == .journaled)
        #expect(CommandState.callbackOpened(.success).recovered == .done(.success))
        #expect(CommandState.done(.success).recovered == .done(.success))
    }
}

@Suite(.timeLimit(.minutes(5))) struct AppLogoutStateTests {
    let app = TargetApp(id: "mail", logoutAction: URL(string: "https://mail.example.com/logout")!)

    @Test func pendingIsSentWithItsNonce() throws {
        let state = try AppLogoutState(app: app).applying(.send(nonce: "a"))
        #expect(state.phase == .sent(attempt: 1, nonce: "a"))
    }

    @Test func sentSucceedsAndTheNonceIsUsed() throws {
        let state = try AppLogoutState(app: app, phase: .sent(attempt: 2, nonce: "a")).applying(.succeed)
        #expect(state.phase == .succeeded(attempts: 2))
        #expect(state.usedNonces == ["a"])
        #expect(state.outcome(resends: 2) == .succeeded)
    }

    @Test func sentFails() throws {
        let state = try AppLogoutState(app: app, phase: .sent(attempt: 1, nonce: "a")).applying(.fail(reason: "r"))
        #expect(state.phase == .failed(attempts: 1, reason: "r"))
        #expect(state.outcome(resends: 2) == .failed)
    }

    @Test func timeoutThenResendIsTheNextAttempt() throws {
        let timedOut = try AppLogoutState(app: app, phase: .sent(attempt: 1, nonce: "a")).applying(.timeOut)
        #expect(timedOut.phase == .timedOut(attempts: 1))
        #expect(timedOut.outcome(resends: 2) == nil)
        let resent = try timedOut.applying(.resend(nonce: "b"))
        #expect(resent.phase == .sent(attempt: 2, nonce: "b"))
        #expect(resent.usedNonces == ["a"])
    }

    @Test func timedOutIsFinalOnceResendsAreSpent() {
        #expect(AppLogoutState(app: app, phase: .timedOut(attempts: 3)).outcome(resends: 2) == .timedOut)
    }

    @Test func impossibleEventsAreErrors() {
        #expect(throws: AppTransitionError.self) { try AppLogoutState(app: app).applying(.succeed) }
        #expect(throws: AppTransitionError.self) { try AppLogoutState(app: app, phase: .succeeded(attempts: 1)).applying(.send(nonce: "x")) }
        #expect(throws: AppTransitionError.self) { try AppLogoutState(app: app, phase: .timedOut(attempts: 1)).applying(.succeed) }
        #expect(throws: AppTransitionError.self) { try AppLogoutState(app: app, phase: .failed(attempts: 1, reason: "")).applying(.timeOut) }
    }
}

@Suite(.timeLimit(.minutes(5))) struct RetryPolicyTests {
    @Test func backoffDoublesUpToTheMaximum() {
        let policy = RetryPolicy(initialBackoff: .milliseconds(500), maximumBackoff: .seconds(3))
        #expect(policy.backoff(after: 1) == .milliseconds(500))
        #expect(policy.backoff(after: 2) == .seconds(1))
        #expect(policy.backoff(after: 3) == .seconds(2))
        #expect(policy.backoff(after: 4) == .seconds(3))
        #expect(policy.backoff(after: 9) == .seconds(3))
    }

    @Test func deadlineIsConfigurableLowerButNeverAboveTwentySeconds() {
        #expect(ReceiverConfiguration().deadline == .seconds(20))
        #expect(ReceiverConfiguration(deadline: .seconds(5)).deadline == .seconds(5))
        #expect(ReceiverConfiguration(deadline: .seconds(60)).deadline == .seconds(20))
        var configuration = ReceiverConfiguration()
        configuration.deadline = .seconds(45)
        #expect(configuration.deadline == .seconds(20))
    }
}
