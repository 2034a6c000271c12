import Clocks
import Crypto
import Foundation
import HandoverClient
import LinkCallbacks
import Testing

@Suite(.timeLimit(.minutes(5))) struct LogoutInitiatorTests {
    let base = URL(string: "https://launcher.example.com/ulc/cb")!
    let apps = [
        TargetApp(id: "mail", logoutAction: URL(string: "https://mail.example.com/logout")!),
        TargetApp(id: "chart", logoutAction: URL(string: "https://chart.example.com/signout?force=1")!),
    ]

    /// An opener that plays the target apps: answers each link as `answer` says.
    final class Apps: URLOpener, @unchecked Sendable {
        enum Answer { case success, error, silence }
        let lock = NSLock()
        var answers: [String: Answer]
        var links: [UniversalLinkCallback] = []
        var initiator: LogoutInitiator?

        init(_ answers: [String: Answer]) { self.answers = answers }

        func open(_ url: URL) async -> Bool {
            guard let link = try? UniversalLinkCallback(parsing: url.absoluteString) else { return false }
            let answer: Answer = lock.withLock {
                links.append(link)
                return answers[link.action.host ?? ""] ?? .silence
            }
            guard let initiator = lock.withLock({ self.initiator }) else { return true }
            switch answer {
            case .success: await initiator.handleCallback(link.success)
            case .error: await initiator.handleCallback(link.error)
            case .silence: break
            }
            return true
        }
    }

    func make(_ answers: [String: Apps.Answer], clock: TestClock<Duration> = TestClock(), folder: URL = temporaryFolder(),
              signer: RequestSigner? = nil, verify: (@Sendable (TargetApp) async -> Bool)? = nil) throws -> (LogoutInitiator, Apps) {
        let opener = Apps(answers)
        let initiator = try LogoutInitiator(apps: apps, configuration: InitiatorConfiguration(callbackBase: base, signer: signer),
                                            opener: opener, journal: InitiatorJournal(file: folder.appendingPathComponent("run.json")),
                                            clock: clock, verifySignedOut: verify)
        opener.initiator = initiator
        return (initiator, opener)
    }

    @Test func eachLinkCarriesAFresh128BitNonce() async throws {
        let (initiator, apps) = try make(["mail.example.com": .success, "chart.example.com": .success])
        let report = await initiator.run()
        #expect(report.allSucceeded)
        let nonces = apps.links.map { URLComponents(url: $0.success, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? "" }
        #expect(nonces.count == 2)
        #expect(Set(nonces).count == 2)
        for nonce in nonces { #expect(try Base64URL.decode(nonce).count == 16) }
        #expect(apps.links[1].action.absoluteString == "https://chart.example.com/signout?force=1")
        #expect(apps.links[0].success.absoluteString.hasPrefix("https://launcher.example.com/ulc/cb/\(await initiator.runID)/mail/success?n="))
    }

    @Test func appsAreOpenedOneAtATimeInOrder() async throws {
        let (initiator, apps) = try make(["mail.example.com": .success, "chart.example.com": .error])
        let report = await initiator.run()
        #expect(apps.links.map { $0.action.host ?? "" } == ["mail.example.com", "chart.example.com"])
        #expect(report.entries.map(\.outcome) == [.succeeded, .failed])
        #expect(report.entries.map(\.attempts) == [1, 1])
    }

    @Test func silentAppIsResentThenMarkedTimedOut() async throws {
        let clock = TestClock()
        let (initiator, apps) = try make(["mail.example.com": .silence, "chart.example.com": .success], clock: clock)
        let run = Task { await initiator.run() }
        #expect(await advance(clock, step: .milliseconds(100)) { apps.lock.withLock { apps.links.count } == 4 } != nil)
        let report = await run.value
        #expect(report.entries[0].outcome == .timedOut)
        #expect(report.entries[0].attempts == 3)
        #expect(report.entries[0].durationMilliseconds >= 60_000 && report.entries[0].durationMilliseconds <= 60_300)
        #expect(report.entries[1].outcome == .succeeded)
        let nonces = Set(apps.links.prefix(3).map(\.success.query))
        #expect(nonces.count == 3)
    }

    @Test func callbacksWithUnknownUsedOrMismatchedNoncesAreRefused() async throws {
        let clock = TestClock()
        let (initiator, apps) = try make([:], clock: clock)
        let run = Task { await initiator.run() }
        #expect(await eventually { apps.lock.withLock { apps.links.count } == 1 })
        let first = apps.links[0]
        let runID = await initiator.runID
        let nonce = first.success.query ?? ""
        await #expect(throws: CallbackRejection.unknownNonce) {
            try await initiator.acceptCallback(URL(string: "\(base)/\(runID)/mail/success?n=AAAAAAAAAAAAAAAAAAAAAA")!)
        }
        await #expect(throws: CallbackRejection.mismatchedNonce) {
            try await initiator.acceptCallback(URL(string: "\(base)/\(runID)/chart/success?\(nonce)")!)
        }
        await #expect(throws: CallbackRejection.mismatchedNonce) {
            try await initiator.acceptCallback(URL(string: "\(base)/other-run/mail/success?\(nonce)")!)
        }
        await #expect(throws: CallbackRejection.self) {
            try await initiator.acceptCallback(URL(string: "https://evil.example.net/x?\(nonce)")!)
        }
        try await initiator.acceptCallback(first.success)
        await #expect(throws: CallbackRejection.usedNonce) { try await initiator.acceptCallback(first.success) }
        #expect(await eventually { apps.lock.withLock { apps.links.count } == 2 })
        try await initiator.acceptCallback(apps.links[1].success)
        let report = await run.value
        #expect(report.allSucceeded)
        await #expect(throws: CallbackRejection.usedNonce) { try await initiator.acceptCallback(first.success) }
    }

    @Test func lateAnswerToATimedOutAttemptIsRefused() async throws {
        let clock = TestClock()
        let (initiator, apps) = try make(["chart.example.com": .success], clock: clock)
        let run = Task { await initiator.run() }
        #expect(await eventually { apps.lock.withLock { apps.links.count } == 1 })
        #expect(await advance(clock, step: .milliseconds(100)) { apps.lock.withLock { apps.links.count } == 2 } != nil)
        await #expect(throws: CallbackRejection.usedNonce) { try await initiator.acceptCallback(apps.links[0].success) }
        try await initiator.acceptCallback(apps.links[1].success)
        let report = await run.value
        #expect(report.entries[0].outcome == .succeeded)
        #expect(report.entries[0].attempts == 2)
        #expect(report.entries[0].durationMilliseconds >= 20_000 && report.entries[0].durationMilliseconds <= 20_100)
    }

    @Test func successWhileTheUserIsStillSignedInIsAFailure() async throws {
        let (initiator, _) = try make(["mail.example.com": .success, "chart.example.com": .success],
                                      verify: { app in app.id != "mail" })
        let report = await initiator.run()
        #expect(report.entries[0].outcome == .failed)
        #expect(report.entries[0].reason?.contains("still signed in") == true)
        #expect(report.entries[1].outcome == .succeeded)
    }

    @Test func killedLauncherResumesItsRun() async throws {
        let folder = temporaryFolder()
        let clock = TestClock()
        let (first, firstApps) = try make(["mail.example.com": .success], clock: clock, folder: folder)
        let run = Task { await first.run() }
        #expect(await eventually { firstApps.lock.withLock { firstApps.links.count } == 2 })
        run.cancel()  // the launcher is killed while waiting for chart
        let runID = await first.runID
        let (second, secondApps) = try make(["chart.example.com": .success], clock: clock, folder: folder)
        #expect(await second.runID == runID)
        let report = await second.run()
        #expect(report.allSucceeded)
        // mail is not asked again; chart's link is opened again with the same nonce.
        #expect(secondApps.links.map(\.success) == [firstApps.links[1].success])
    }

    @Test func signedLinksVerifyWithTheLauncherKey() async throws {
        let key = P256.Signing.PrivateKey()
        let (initiator, apps) = try make(["mail.example.com": .success, "chart.example.com": .success],
                                         signer: RequestSigner(privateKey: key))
        _ = await initiator.run()
        let verifier = RequestVerifier(trustedKeys: [key.publicKey])
        for link in apps.links {
            try verifier.verify(link, now: Date(timeIntervalSince1970: TimeInterval(link.timestamp ?? 0)))
        }
    }
}
