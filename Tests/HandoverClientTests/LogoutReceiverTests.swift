import Clocks
import Foundation
import HandoverClient
import LinkCallbacks
import Testing

@Suite(.timeLimit(.minutes(5))) struct LogoutReceiverTests {
    struct Fixture {
        let clock = TestClock()
        let opener = RecordingOpener()
        let folder = temporaryFolder()
        let handler: ScriptedHandler
        let receiver: LogoutReceiver
        let journal: CommandJournal

        init(_ script: [ScriptedHandler.Step] = [.succeed], configuration: ReceiverConfiguration = ReceiverConfiguration(),
             now: @escaping @Sendable () -> Date = { Date() }) throws {
            handler = ScriptedHandler(script, clock: clock)
            journal = try CommandJournal(folder: folder)
            receiver = LogoutReceiver(configuration: configuration, journal: journal, opener: opener, handler: handler,
                                      clock: clock, now: now)
        }
    }

    @Test func acceptedLinkIsJournaledBeforeHandleReturns() throws {
        let fixture = try Fixture()
        #expect(fixture.receiver.handle(ulc()))
        let stored = try fixture.journal.load()
        #expect(stored.count == 1)
        #expect(stored.first?.state == .journaled)
        #expect(stored.first?.link == ulc().absoluteString)
    }

    @Test func linksThatArriveBeforeLaunchWaitForIt() async throws {
        let fixture = try Fixture()
        fixture.receiver.handle(ulc())
        await settle()
        #expect(fixture.handler.calls == 0)
        #expect(fixture.opener.opened.isEmpty)
        fixture.receiver.appDidFinishLaunching()
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 1)
        #expect(fixture.opener.opened == [URL(string: "https://launcher.example.com/ok?n=1")!])
        #expect(try fixture.journal.load().isEmpty)
    }

    @Test func successIsOpenedAlsoWhenNobodyWasSignedIn() async throws {
        let fixture = try Fixture([.nobody])
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.opener.opened.map(\.path) == ["/ok"])
    }

    @Test func unrecoverableFailureOpensTheErrorURLWithoutRetrying() async throws {
        let fixture = try Fixture([.fail(LogoutFailure("account locked", isRetryable: false))])
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 1)
        #expect(fixture.opener.opened.map(\.path) == ["/fail"])
    }

    @Test func retryableFailureIsRetriedWithBackoffBeforeSucceeding() async throws {
        let fixture = try Fixture([.fail(LogoutFailure("503", isRetryable: true)), .fail(LogoutFailure("503", isRetryable: true)), .succeed])
        // The planned backoffs, exactly, from the receiver's events.
        let backoffs = Task {
            var planned: [Duration] = []
            for await event in fixture.receiver.events {
                if case .attemptFailed(_, _, _, let retryIn?) = event { planned.append(retryIn) }
                if planned.count == 2 { break }
            }
            return planned
        }
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        #expect(await advance(fixture.clock) { fixture.handler.calls == 3 } != nil)
        // No retry runs before its backoff has passed on the clock, measured between the
        // attempts themselves. (Only a lower bound: on a loaded machine the receiver may start
        // its sleep a few test steps after the attempt.)
        let times = fixture.handler.callTimes
        try #require(times.count == 3, "\(times)")
        #expect(times[1] - times[0] >= .milliseconds(500), "\(times)")
        #expect(times[2] - times[1] >= .seconds(1), "\(times)")
        #expect(await backoffs.value == [.milliseconds(500), .seconds(1)])
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.opener.opened.map(\.path) == ["/ok"])
    }

    /// The retry cap holds: a handler that always fails with a retryable error is called exactly
    /// `maximumAttempts` times, then the error URL is opened.
    @Test(arguments: [1, 3, 5])
    func aHandlerThatAlwaysFailsRetryablyIsCalledExactlyMaximumAttemptsTimes(maximumAttempts: Int) async throws {
        let retry = RetryPolicy(initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(10), maximumAttempts: maximumAttempts)
        let fixture = try Fixture([.fail(LogoutFailure("503", isRetryable: true))],
                                  configuration: ReceiverConfiguration(deadline: .seconds(20), retry: retry))
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        #expect(await advance(fixture.clock) { fixture.opener.opened.count == 1 } != nil)
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == maximumAttempts)
        #expect(fixture.opener.opened.map(\.path) == ["/fail"])
    }

    @Test func retriesStopWhenTheNextWaitWouldPassTheDeadline() async throws {
        let configuration = ReceiverConfiguration(deadline: .seconds(2), retry: RetryPolicy(initialBackoff: .seconds(1)))
        let fixture = try Fixture([.fail(LogoutFailure("503", isRetryable: true))], configuration: configuration)
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        #expect(await eventually { fixture.handler.calls == 1 })
        #expect(await advance(fixture.clock) { fixture.handler.calls == 2 } != nil)
        // The next wait (2 s) would end past the 2 s deadline: the error is reported now.
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 2)
        #expect(fixture.opener.opened.map(\.path) == ["/fail"])
    }

    @Test func slowLogoutGetsTheErrorURLAtTheDeadlineAndNotBefore() async throws {
        let fixture = try Fixture([.wait(.seconds(30))])
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        #expect(await eventually { fixture.handler.calls == 1 })
        let answered = try #require(await advance(fixture.clock, step: .milliseconds(100)) { !fixture.opener.opened.isEmpty })
        #expect(answered >= .seconds(20) && answered <= .milliseconds(20_100))
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.opener.opened.map(\.path) == ["/fail"])
    }

    @Test func lowerDeadlineIsHonoured() async throws {
        let fixture = try Fixture([.wait(.seconds(30))], configuration: ReceiverConfiguration(deadline: .seconds(5)))
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        #expect(await eventually { fixture.handler.calls == 1 })
        let answered = try #require(await advance(fixture.clock, step: .milliseconds(100)) { !fixture.opener.opened.isEmpty })
        #expect(answered >= .seconds(5) && answered <= .milliseconds(5_100))
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.opener.opened.map(\.path) == ["/fail"])
    }

    @Test func handlerThatIgnoresCancellationCannotHoldTheAnswerPastTheDeadline() async throws {
        let fixture = try Fixture([.hang])
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        #expect(await eventually { fixture.handler.calls == 1 })
        let answered = try #require(await advance(fixture.clock, step: .milliseconds(100)) { !fixture.opener.opened.isEmpty })
        #expect(answered <= .milliseconds(20_100))
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.opener.opened.map(\.path) == ["/fail"])
    }

    @Test func refusedCallbackIsNotOpenedButTheLogoutStillHappens() async throws {
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["launcher.example.com"]))
        let fixture = try Fixture(configuration: ReceiverConfiguration(policy: policy))
        fixture.receiver.appDidFinishLaunching()
        #expect(fixture.receiver.handle(ulc(success: "https://evil.example.net/steal", error: "https://evil.example.net/steal")))
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 1)
        #expect(fixture.opener.opened.isEmpty)
        fixture.receiver.terminate()
        var refused = false
        for await event in fixture.receiver.events {
            if case .callbackRefused(_, let answer, let reason) = event {
                refused = answer == .success && reason.contains("allowlist")
            }
        }
        #expect(refused)
    }

    @Test func linkWhoseActionBreaksThePolicyIsRefusedAndNotJournaled() throws {
        let fixture = try Fixture()
        #expect(!fixture.receiver.handle(URL(string: "http://app.example.com/logout?ulc-success=https%3A%2F%2Fa.example.com&ulc-error=https%3A%2F%2Fa.example.com")!))
        #expect(!fixture.receiver.handle(URL(string: "https://app.example.com/logout")!))
        #expect(try fixture.journal.load().isEmpty)
        #expect(throws: ReceiverRejection.self) { try fixture.receiver.accept(URL(string: "https://app.example.com/logout?ulc-error=x")!) }
    }

    /// The tester's duplicate-link round: the same link sent twice is answered twice, safely
    /// (one logout, one answer per copy).
    @Test func duplicateLinkWhileInFlightJoinsItAndEachCopyIsAnswered() async throws {
        let fixture = try Fixture([.wait(.seconds(1))])
        fixture.receiver.appDidFinishLaunching()
        let first = try fixture.receiver.accept(ulc())
        #expect(await eventually { fixture.handler.calls == 1 })
        let second = try fixture.receiver.accept(ulc())
        #expect(first == second)
        #expect(try fixture.journal.load().count == 1)
        await advance(fixture.clock) { !fixture.opener.opened.isEmpty }
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 1)
        #expect(fixture.opener.opened.map(\.path) == ["/ok", "/ok"])
    }

    /// A copy that arrives while a command's answers are going out, after the copies that
    /// joined it were counted, must still be answered (it was acknowledged): it cannot join a
    /// command that has already counted its answers.
    @Test func copyArrivingWhileTheAnswersGoOutIsAnsweredToo() async throws {
        let clock = TestClock()
        let handler = ScriptedHandler([.wait(.seconds(1))], clock: clock)
        let receiver = Late<LogoutReceiver>()
        let opens = Late<Int>()
        // The second open is the joined copy's answer: the third copy arrives right then.
        let opener = RecordingOpener { _ in
            if opens.update({ ($0 ?? 0) + 1 }) == 2 { #expect(receiver.value?.handle(ulc()) == true) }
        }
        receiver.value = LogoutReceiver(journal: try CommandJournal(folder: temporaryFolder()), opener: opener,
                                        handler: handler, clock: clock)
        let subject = try #require(receiver.value)
        subject.appDidFinishLaunching()
        subject.handle(ulc())
        subject.handle(ulc())
        #expect(await advance(clock, limit: .seconds(10)) { opener.opened.count == 3 } != nil,
                "every copy is answered: \(opener.opened.map(\.path))")
        await subject.waitUntilIdle()
        #expect(opener.opened.map(\.path) == ["/ok", "/ok", "/ok"])
    }

    @Test func resendAfterCompletionRunsTheHandlerAgainAndAnswersAgain() async throws {
        let fixture = try Fixture()
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        await fixture.receiver.waitUntilIdle()
        fixture.receiver.handle(ulc())
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 2)
        #expect(fixture.opener.opened.count == 2)
    }

    @Test func callbackAfterForceQuitIsDeliveredOnce() async throws {
        let fixture = try Fixture()
        // Accepted during start-up, then the app is force-quit before it could run.
        fixture.receiver.handle(ulc())
        fixture.receiver.terminate()
        #expect(fixture.opener.opened.isEmpty)
        let relaunched = LogoutReceiver(journal: fixture.journal, opener: fixture.opener, handler: fixture.handler, clock: fixture.clock)
        relaunched.appDidFinishLaunching()
        await relaunched.waitUntilIdle()
        #expect(fixture.opener.opened.map(\.path) == ["/ok"])
        // A further launch finds nothing left to do.
        let again = LogoutReceiver(journal: fixture.journal, opener: fixture.opener, handler: fixture.handler, clock: fixture.clock)
        again.appDidFinishLaunching()
        await again.waitUntilIdle()
        #expect(fixture.opener.opened.count == 1)
    }

    /// A force-quit app has nothing more to wait for: waiting after `terminate()` returns, as
    /// waiting before it does.
    @Test(.timeLimit(.minutes(5))) func waitingForIdleAfterTerminateReturns() async throws {
        let fixture = try Fixture([.hang])
        fixture.receiver.appDidFinishLaunching()
        fixture.receiver.handle(ulc())
        fixture.receiver.terminate()
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.opener.opened.isEmpty)
    }

    /// Idle means nothing is left to do, the journal's clean-up included: an app that exits
    /// as soon as the receiver is idle leaves no command behind. Many commands finish at once,
    /// so that one finishing can see the others answered while their files are still there.
    @Test func journalIsEmptyOnceIdleWhenManyCommandsFinishTogether() async throws {
        for round in 0..<100 {
            let fixture = try Fixture()
            fixture.receiver.appDidFinishLaunching()
            for index in 0..<8 {
                fixture.receiver.handle(ulc(success: "https://launcher.example.com/ok?n=\(round)-\(index)"))
            }
            await fixture.receiver.waitUntilIdle()
            let left = try fixture.journal.load()
            #expect(left.isEmpty, "round \(round): \(left.map(\.state))")
            if !left.isEmpty { break }
        }
    }

    @Test func commandKilledWhileRunningIsRunAgainAtLaunch() async throws {
        let fixture = try Fixture()
        try fixture.journal.save(LogoutCommand(id: "c1", link: ulc().absoluteString, receivedAt: Date(), state: .running(attempt: 2)))
        fixture.receiver.appDidFinishLaunching()
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 1)
        #expect(fixture.opener.opened.map(\.path) == ["/ok"])
        #expect(try fixture.journal.load().isEmpty)
    }

    @Test func commandKilledAfterItsCallbackOpenedIsNotOpenedAgain() async throws {
        let fixture = try Fixture()
        try fixture.journal.save(LogoutCommand(id: "c1", link: ulc().absoluteString, receivedAt: Date(), state: .callbackOpened(.success)))
        fixture.receiver.appDidFinishLaunching()
        await fixture.receiver.waitUntilIdle()
        #expect(fixture.handler.calls == 0)
        #expect(fixture.opener.opened.isEmpty)
        #expect(try fixture.journal.load().isEmpty)
    }

    @Test func eventsReportTheLifeOfACommand() async throws {
        let fixture = try Fixture()
        fixture.receiver.appDidFinishLaunching()
        let id = try fixture.receiver.accept(ulc())
        await fixture.receiver.waitUntilIdle()
        fixture.receiver.terminate()
        var events: [ReceiverEvent] = []
        for await event in fixture.receiver.events { events.append(event) }
        #expect(events == [
            .accepted(id: id),
            .attemptStarted(id: id, attempt: 1),
            .callbackOpened(id: id, answer: .success, url: URL(string: "https://launcher.example.com/ok?n=1")!),
        ])
    }
}
