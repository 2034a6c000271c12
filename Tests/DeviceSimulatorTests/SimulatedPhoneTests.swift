import Clocks
import DeviceSimulator
import Foundation
import HandoverClient
import LinkCallbacks
import Testing

@Suite(.timeLimit(.minutes(5))) struct SimulatedPhoneTests {
    /// A loopback server with an AASA file for `mail` (claims /apps/mail/*, except /apps/mail/web/*).
    static func server() async throws -> LoopbackServer {
        let server = try await LoopbackServer.start()
        server.setRoute("/.well-known/apple-app-site-association", .init(contentType: "application/json", body: """
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.mail"],
              "components":[{"/":"/apps/mail/web/*","exclude":true},{"/":"/apps/mail/*"}]}]}}
            """))
        server.setRoute("/", .init(body: "home"))
        server.setRoute("/cb/ok", .init(body: "logged out"))
        return server
    }

    static func mail(_ server: LoopbackServer, behaviour: AppBehaviour = .conformant) -> InstalledApp {
        InstalledApp(name: "mail", teamID: "ABCDE12345", bundleID: "com.example.mail",
                     associatedDomains: ["applinks:127.0.0.1:\(server.port)?mode=developer"], customSchemes: ["mail"],
                     kind: .target(behaviour))
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("handover-phone-\(UUID().uuidString)")
    }

    @Test func universalLinkIsRoutedByTheAssociationFileFetchedOverHTTP() async throws {
        let server = try await Self.server()
        let phone = SimulatedPhone(clock: TestClock(), storage: Self.folder(), developerMode: true)
        try await phone.install(Self.mail(server))
        #expect(server.requests.contains("/.well-known/apple-app-site-association"))
        #expect(await phone.appClaiming(URL(string: "\(server.origin)/apps/mail/logout")!) == "mail")
        #expect(await phone.appClaiming(URL(string: "\(server.origin)/apps/mail/web/help")!) == nil)
        #expect(await phone.appClaiming(URL(string: "\(server.origin)/elsewhere")!) == nil)
        await phone.shutdown()
        try await server.shutdown()
    }

    @Test func linkNoAppClaimsGoesToTheBrowserWhichFetchesIt() async throws {
        let server = try await Self.server()
        let phone = SimulatedPhone(clock: TestClock(), storage: Self.folder(), developerMode: true)
        try await phone.install(Self.mail(server))
        #expect(await phone.open(URL(string: "\(server.origin)/")!) == .browser(status: 200))
        #expect(await phone.open(URL(string: "\(server.origin)/apps/mail/web/help")!) == .browser(status: 404))
        #expect(server.requests.suffix(2) == ["/", "/apps/mail/web/help"])
        #expect(await phone.foreground == nil)
        await phone.shutdown()
        try await server.shutdown()
    }

    @Test func loopbackDomainNeedsDeveloperMode() async throws {
        let server = try await Self.server()
        let phone = SimulatedPhone(clock: TestClock(), storage: Self.folder(), developerMode: false)
        await #expect(throws: SimulatorError.self) { try await phone.install(Self.mail(server)) }
        await phone.shutdown()
        try await server.shutdown()
    }

    @Test func customSchemeOpensTheDeclaringAppAfterAPrompt() async throws {
        let server = try await Self.server()
        let phone = SimulatedPhone(clock: TestClock(), storage: Self.folder(), developerMode: true)
        try await phone.install(Self.mail(server))
        #expect(await phone.open(URL(string: "mail://x-callback-url/compose")!, from: "launcher") == .app("mail"))
        #expect(await phone.prompts.map(\.to) == ["mail"])
        #expect(await phone.foreground == "mail")
        #expect(await phone.open(URL(string: "nobody://x")!).self != .app("nobody"))
        await phone.shutdown()
        try await server.shutdown()
    }

    @Test func universalLinkShowsNoPromptAndForegroundsTheApp() async throws {
        let server = try await Self.server()
        let clock = TestClock()
        let phone = SimulatedPhone(clock: clock, storage: Self.folder(), developerMode: true)
        try await phone.install(Self.mail(server))
        let link = try UniversalLinkCallback(actionText: "\(server.origin)/apps/mail/logout", successText: "\(server.origin)/cb/ok",
                                             errorText: "\(server.origin)/cb/fail")
        #expect(await phone.open(link.url, from: "launcher") == .app("mail"))
        #expect(await phone.prompts.isEmpty)
        #expect(await phone.foreground == "mail")
        await phone.shutdown()
        try await server.shutdown()
    }

    @Test func forceQuitDropsMemoryAndTheNextLaunchCompletesTheJournaledLink() async throws {
        let server = try await Self.server()
        let clock = TestClock()
        let phone = SimulatedPhone(clock: clock, storage: Self.folder(), developerMode: true)
        try await phone.install(Self.mail(server))
        await phone.launch("mail")
        await clock.advance(by: .seconds(1))  // start-up done
        let link = try UniversalLinkCallback(actionText: "\(server.origin)/apps/mail/logout", successText: "\(server.origin)/cb/ok",
                                             errorText: "\(server.origin)/cb/fail")
        #expect(await phone.open(link.url, from: "launcher") == .app("mail"))
        await phone.forceQuit("mail")  // mid-logout: the handler takes 1 s
        #expect(await !phone.isRunning("mail"))
        await clock.advance(by: .seconds(5))
        #expect(await phone.isSignedIn("mail"))
        #expect(await !phone.history.contains { $0.url == link.success })
        await phone.launch("mail")
        _ = await SimulatedTimeDriver.run(clock: clock) {
            while await !phone.history.contains(where: { $0.url == link.success }) { await Task.yield() }
        }
        #expect(await phone.history.filter { $0.url == link.success }.map(\.route) == [.browser(status: 200)])
        #expect(await !phone.isSignedIn("mail"))
        #expect(await phone.launches["mail"] == 2)
        await phone.shutdown()
        try await server.shutdown()
    }

    /// Once the apps are idle, the work a link started is over, however long it took: the
    /// callback reached its server (for `premature`, before the logout) and the logout is done.
    @Test(arguments: [AppBehaviour.conformant, .premature])
    func appsAreIdleOnceALinksCallbackAndLogoutAreDone(behaviour: AppBehaviour) async throws {
        let server = try await Self.server()
        let phone = SimulatedPhone(clock: SpedUpClock(speed: 5), storage: Self.folder(), developerMode: true)
        try await phone.install(Self.mail(server, behaviour: behaviour))
        await phone.launch("mail")
        let link = try UniversalLinkCallback(actionText: "\(server.origin)/apps/mail/logout", successText: "\(server.origin)/cb/ok",
                                             errorText: "\(server.origin)/cb/fail")
        #expect(await phone.open(link.url, from: "launcher") == .app("mail"))
        await phone.waitUntilAppsAreIdle()
        #expect(server.requests.contains("/cb/ok"))
        #expect(await !phone.isSignedIn("mail"))
        await phone.shutdown()
        try await server.shutdown()
    }
}

@Suite(.timeLimit(.minutes(5))) struct LogoutSimulationTests {
    @Test func everyBehaviourEndsAsTheSpecPredicts() async throws {
        let result = try await LogoutSimulation(behaviours: AppBehaviour.allCases).run()
        let outcomes = Dictionary(uniqueKeysWithValues: result.apps.map { ($0.behaviour, $0) })
        #expect(outcomes[.conformant]?.outcome == .succeeded)
        #expect(outcomes[.flaky]?.outcome == .succeeded)
        #expect(outcomes[.killed]?.outcome == .succeeded)
        #expect(outcomes[.slow]?.outcome == .timedOut)
        #expect(outcomes[.silent]?.outcome == .timedOut)
        #expect(outcomes[.slow]?.attempts == 3)
        #expect(outcomes[.silent]?.attempts == 3)
        #expect((60_000...60_300).contains(outcomes[.silent]?.durationMilliseconds ?? 0))
        #expect(outcomes[.failing]?.outcome == .failed)
        #expect(outcomes[.premature]?.outcome == .failed)
        #expect(outcomes[.premature]?.reason?.contains("still signed in") == true)
        #expect(result.apps.filter { $0.outcome != .timedOut }.allSatisfy { $0.attempts == 1 })
        #expect(result.prompts == 0)
    }

    /// Apps without ULC in local mode: the launcher's `LogoutInitiator` opens their x-callback-url
    /// (iOS's prompt each time) and takes their replies on its own scheme through its router.
    @Test func xCallbackAppsEndAsTheirBehavioursPredictWithAPromptForEachLink() async throws {
        let result = try await LogoutSimulation(behaviours: [.conformant],
                                                xCallbackBehaviours: [.conformant, .failing, .silent, .premature, .killed]).run()
        let outcomes = Dictionary(uniqueKeysWithValues: result.apps.map { ($0.app, $0) })
        #expect(outcomes["conformant"]?.outcome == .succeeded)
        #expect(outcomes["x-conformant"]?.outcome == .succeeded)
        #expect(outcomes["x-killed"]?.outcome == .succeeded)
        #expect(outcomes["x-failing"]?.outcome == .failed)
        #expect(outcomes["x-failing"]?.reason?.contains("errorCode 1: the identity provider refused to end the session") == true)
        #expect(outcomes["x-silent"]?.outcome == .timedOut)
        #expect(outcomes["x-silent"]?.attempts == 3)
        #expect(outcomes["x-premature"]?.outcome == .failed)
        #expect(outcomes["x-premature"]?.reason?.contains("still signed in") == true)
        // One prompt per x-callback link opened (3 for the silent app) and one per reply back
        // to the launcher's scheme (every app but the silent one answers once).
        #expect(result.prompts == (1 + 1 + 3 + 1 + 1) + 4)
    }

    @Test func attemptsOfASilentAppAreOnePlusResends() async throws {
        let result = try await LogoutSimulation(behaviours: [.silent], timeout: .seconds(5), resends: 4).run()
        #expect(result.apps.first?.attempts == 5)
        #expect((25_000...25_500).contains(result.apps.first?.durationMilliseconds ?? 0))
    }

    @Test func associationFileNamesEveryAppAndTheLauncher() throws {
        let text = LogoutSimulation.associationFile(apps: ["a", "b"])
        #expect(text.contains("ABCDE12345.com.example.a") && text.contains("/apps/b/*") && text.contains("/launcher/*"))
    }
}
