import Clocks
import Foundation
import HandoverClient
import HandoverProtocol
import LinkCallbacks
import Testing

/// The serverless launcher logging out apps without ULC by x-callback-url: the answers come back
/// on the launcher's scheme through its `XCallbackRouter`, with the nonces, deadlines, resends
/// and journal of ULC.
@Suite(.timeLimit(.minutes(5))) struct LogoutInitiatorXCallbackTests {
    let base = URL(string: "https://launcher.example.com/ulc/cb")!
    let apps = [
        TargetApp(id: "mail", logoutAction: URL(string: "https://mail.example.com/logout")!),
        TargetApp(id: "pager", logoutAction: URL(string: "pager://x-callback-url/logout?team=ward-7")!),
    ]

    /// Plays the phone: a ULC app answers on its success URL; the x-callback app answers as
    /// `answer` says, opening its reply target, which the launcher's router takes.
    final class Phone: URLOpener, @unchecked Sendable {
        enum Answer { case success, error, cancel, silence, notInstalled }
        let lock = NSLock()
        let answer: Answer
        var opened: [URL] = []
        var initiator: LogoutInitiator?
        var router: XCallbackRouter?

        init(_ answer: Answer) { self.answer = answer }

        var xCallbackLinks: [XCallbackRequest] {
            lock.withLock { opened.compactMap { try? XCallbackRequest(parsing: $0.absoluteString) }.filter { $0.scheme == "pager" } }
        }

        func open(_ url: URL) async -> Bool {
            lock.withLock { opened.append(url) }
            if url.host == "launcher.example.com" {  // a callback universal link of the launcher
                _ = await lock.withLock({ initiator })?.handleCallback(url)
                return true
            }
            if let ulc = try? UniversalLinkCallback(parsing: url.absoluteString) {
                _ = await lock.withLock({ initiator })?.handleCallback(ulc.success)
                return true
            }
            guard let request = try? XCallbackRequest(parsing: url.absoluteString) else { return false }
            if request.scheme == "launcher" {  // a reply back to the launcher
                guard let router = lock.withLock({ router }) else { return false }
                await router.handle(url)
                return true
            }
            let reply: URL?
            switch answer {
            case .success: reply = request.successReply()
            case .error: reply = request.errorReply(code: 7, message: "the directory refused\n the logout")
            case .cancel: reply = request.cancelReply()
            case .silence: return true
            case .notInstalled: return false
            }
            if let reply { _ = await open(reply) }
            return true
        }
    }

    func make(_ answer: Phone.Answer, clock: TestClock<Duration> = TestClock(), folder: URL = temporaryFolder(#function),
              replyScheme: String? = "launcher") throws -> (LogoutInitiator, Phone) {
        let phone = Phone(answer)
        let initiator = try LogoutInitiator(
            apps: apps,
            configuration: InitiatorConfiguration(callbackBase: base, xCallbackReplyScheme: replyScheme),
            opener: phone, journal: InitiatorJournal(file: folder.appendingPathComponent("run.json")), clock: clock)
        let router = XCallbackRouter(scheme: "launcher", policy: CallbackPolicy(), opener: phone)
        initiator.takeReplies(through: router)
        phone.lock.withLock {
            phone.initiator = initiator
            phone.router = router
        }
        return (initiator, phone)
    }

    @Test func theMethodIsReadFromTheAction() {
        #expect(apps.map(\.logoutMethod) == [.ulc, .xCallback])
        #expect(TargetApp(id: "a", logoutAction: URL(string: "https://x-callback-url/logout")!).logoutMethod == .ulc)
    }

    @Test func anXCallbackAppAnswersOnTheLaunchersSchemeThroughItsRouter() async throws {
        let (initiator, phone) = try make(.success)
        let report = await initiator.run()
        #expect(report.allSucceeded)
        let links = phone.xCallbackLinks
        try #require(links.count == 1)
        let link = links[0]
        #expect(link.action == "logout")
        #expect(link.parameter("team") == "ward-7")
        let runID = await initiator.runID
        for (target, answer) in [(link.success, "success"), (link.error, "error"), (link.cancel, "cancel")] {
            let reply = try XCallbackRequest(parsing: try #require(target).absoluteString)
            #expect(reply.scheme == "launcher")
            #expect(reply.action == "handover-logout-reply")
            #expect(reply.parameter("run") == runID)
            #expect(reply.parameter("app") == "pager")
            #expect(reply.parameter("answer") == answer)
            #expect(try Base64URL.decode(reply.parameter("n") ?? "").count == 16)
        }
        #expect(Set([link.success, link.error, link.cancel].map { try? XCallbackRequest(parsing: $0!.absoluteString).parameter("n") }).count == 1)
    }

    @Test func xErrorFailsTheAppWithTheAppsOwnWords() async throws {
        let (initiator, _) = try make(.error)
        let report = await initiator.run()
        #expect(report.entries.map(\.outcome) == [.succeeded, .failed])
        let reason = try #require(report.entries[1].reason)
        #expect(reason.contains("errorCode 7: the directory refused  the logout"))
        #expect(!reason.contains("\n"))
    }

    @Test func xCancelFailsTheAppAsCancelledByThePerson() async throws {
        let (initiator, _) = try make(.cancel)
        let report = await initiator.run()
        #expect(report.entries[1].outcome == .failed)
        #expect(report.entries[1].reason?.contains("x-cancel") == true)
        #expect(report.entries[1].attempts == 1)
    }

    @Test func aLinkIOSDoesNotOpenFailsAtOnceWithoutWaitingForItsDeadline() async throws {
        let clock = TestClock()
        let (initiator, _) = try make(.notInstalled, clock: clock)
        let report = await initiator.run()  // the test clock never moves: no deadline could have fired
        #expect(report.entries[1].outcome == .failed)
        #expect(report.entries[1].attempts == 1)
        #expect(report.entries[1].reason?.contains("declined iOS's prompt") == true)
    }

    @Test func aSilentXCallbackAppIsResentWithFreshNoncesThenTimesOut() async throws {
        let clock = TestClock()
        let (initiator, phone) = try make(.silence, clock: clock)
        let finished = NSLock()
        nonisolated(unsafe) var done: LogoutReport?
        let run = Task {
            let result = await initiator.run()
            finished.withLock { done = result }
        }
        #expect(await advance(clock, step: .milliseconds(100)) { finished.withLock { done != nil } } != nil)
        await run.value
        let report = try #require(finished.withLock { done })
        #expect(report.entries[1].outcome == .timedOut)
        #expect(report.entries[1].attempts == 3)
        #expect(report.entries[1].durationMilliseconds >= 60_000 && report.entries[1].durationMilliseconds <= 60_300)
        let nonces = phone.xCallbackLinks.compactMap { $0.success.flatMap { try? XCallbackRequest(parsing: $0.absoluteString) }?.parameter("n") }
        #expect(Set(nonces).count == 3)
        // A late answer to the first attempt is refused as used.
        let late = try XCallbackRequest(parsing: try #require(phone.xCallbackLinks[0].success).absoluteString)
        await #expect(throws: CallbackRejection.usedNonce) { try await initiator.acceptXCallbackReply(late) }
    }

    @Test func forgedRepliesAreRefusedAndReportedByTheRouter() async throws {
        let clock = TestClock()
        let (initiator, phone) = try make(.silence, clock: clock)
        let events = Task { () -> [InitiatorEvent] in
            var seen: [InitiatorEvent] = []
            for await event in initiator.events {
                seen.append(event)
                if case .callbackRejected = event, seen.filter({ if case .callbackRejected = $0 { true } else { false } }).count == 3 { break }
            }
            return seen
        }
        let run = Task { await initiator.run() }
        #expect(await eventually { phone.xCallbackLinks.count == 1 })
        let link = try XCallbackRequest(parsing: try #require(phone.xCallbackLinks[0].success).absoluteString)
        let nonce = try #require(link.parameter("n"))
        let runID = await initiator.runID
        let router = try #require(phone.lock.withLock { phone.router })
        func reply(_ items: [(String, String)], scheme: String = "launcher") -> URL {
            try! XCallbackRequest(scheme: scheme, action: "handover-logout-reply",
                                  parameters: items.map { QueryParameter(name: $0.0, value: $0.1) }).url!
        }
        // Another app's name with this nonce, an unknown nonce, and no answer at all.
        for url in [reply([("run", runID), ("app", "mail"), ("answer", "success"), ("n", nonce)]),
                    reply([("run", runID), ("app", "pager"), ("answer", "success"), ("n", "AAAAAAAAAAAAAAAAAAAAAA")]),
                    reply([("run", runID), ("app", "pager"), ("n", nonce)])] {
            let dispatch = await router.handle(url)
            guard case .handled(_, .failure(let code, _), _) = dispatch else {
                Issue.record("expected a refusal, got \(dispatch)")
                continue
            }
            #expect(code == 403)
        }
        await #expect(throws: CallbackRejection.notACallback("its scheme is other, not launcher")) {
            try await initiator.acceptXCallbackReply(XCallbackRequest(parsing: reply([("n", nonce)], scheme: "other").absoluteString))
        }
        let rejected = await events.value.compactMap { event -> CallbackRejection? in
            if case .callbackRejected(_, let reason) = event { return reason }
            return nil
        }
        #expect(rejected.prefix(2) == [.mismatchedNonce, .unknownNonce])
        #expect(rejected.count == 3)
        // The genuine reply still settles the attempt.
        try await initiator.acceptXCallbackReply(link)
        #expect(await run.value.allSucceeded)
    }

    @Test func withoutAReplySchemeTheAnswersComeBackOnTheCallbackURLs() async throws {
        let (initiator, phone) = try make(.cancel, replyScheme: nil)
        let report = await initiator.run()
        let link = try #require(phone.xCallbackLinks.first)
        let runID = await initiator.runID
        #expect(link.success?.absoluteString.hasPrefix("\(base)/\(runID)/pager/success?n=") == true)
        #expect(link.error?.absoluteString.hasPrefix("\(base)/\(runID)/pager/error?n=") == true)
        #expect(link.cancel == link.error)
        // The app opened x-cancel, which is the error URL here.
        #expect(report.entries[1].outcome == .failed)
        #expect(report.entries[1].reason == "it opened its error URL")
    }

    @Test func aKilledLauncherReopensTheXCallbackLinkInFlightWithItsNonce() async throws {
        let folder = temporaryFolder()
        let clock = TestClock()
        let (first, firstPhone) = try make(.silence, clock: clock, folder: folder)
        let run = Task { await first.run() }
        #expect(await eventually { firstPhone.xCallbackLinks.count == 1 })
        run.cancel()  // killed while waiting for pager
        let (second, secondPhone) = try make(.success, clock: clock, folder: folder)
        #expect(await second.runID == (await first.runID))
        let report = await second.run()
        #expect(report.allSucceeded)
        #expect(secondPhone.xCallbackLinks.map(\.success) == firstPhone.xCallbackLinks.map(\.success))
        #expect(secondPhone.lock.withLock { secondPhone.opened.contains { $0.host == "mail.example.com" } } == false)
    }
}
