import Foundation

/// A simulated phone for the ULC conformance tester: each ``installApp(behaviour:allowedCallbackHost:)``
/// puts a new app with that behaviour on the phone, with its own loopback server for its
/// association file and logout action, and signs a user in to it; ``open(_:)`` taps a link.
///
/// Every app declares a callback allowlist of the one host given. Apps built on
/// `LogoutReceiver` (`conformant`, `flaky`, `failing`, `killed`) enforce it; the others handle
/// links with their own code and open whatever callback they are given, as apps do that claim
/// an allowlist without enforcing it.
public actor TesterPhone {
    /// What an installed app looks like from outside.
    public struct App: Sendable {
        public var name: String
        /// Its logout action URL.
        public var actionURL: String
        /// Whether it declares an allowlist (every app here does; only some enforce it).
        public var declaresAllowlist: Bool
    }

    private let phone: SimulatedPhone
    private let storage: URL
    private var servers: [LoopbackServer] = []
    private var count = 0

    /// - Parameter clock: the phone's clock (a ``SpedUpClock`` for a demonstration).
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        storage = FileManager.default.temporaryDirectory.appendingPathComponent("handover-tester-phone-\(UUID().uuidString)")
        phone = SimulatedPhone(clock: clock, storage: storage, developerMode: true)
    }

    /// Installs a new app with `behaviour` and launches it.
    public func installApp(behaviour: AppBehaviour, allowedCallbackHost: String) async throws -> App {
        count += 1
        let name = "tester-\(behaviour.rawValue)-\(count)"
        let server = try await LoopbackServer.start()
        servers.append(server)
        server.setRoute("/.well-known/apple-app-site-association",
                        .init(contentType: "application/json", body: LogoutSimulation.associationFile(apps: [name])))
        try await phone.install(InstalledApp(
            name: name, teamID: LogoutSimulation.teamID, bundleID: "com.example.\(name)",
            associatedDomains: ["applinks:127.0.0.1:\(server.port)?mode=developer"], kind: .target(behaviour),
            callbackAllowlist: [allowedCallbackHost]))
        await phone.launch(name)
        if behaviour == .killed { await phone.forceQuitBeforeNextLink(name) }
        return App(name: name, actionURL: "\(server.origin)/apps/\(name)/logout", declaresAllowlist: true)
    }

    /// Opens a link on the phone, as a tap in another app would.
    public func open(_ link: String) async {
        guard let url = URL(string: link) else { return }
        await phone.open(url, from: nil)
    }

    /// Returns once the apps have finished the work the opened links started (their callbacks
    /// have reached the tester, late ones included).
    public func waitUntilIdle() async {
        await phone.waitUntilAppsAreIdle()
    }

    /// Stops the apps and the loopback servers, and deletes the apps' files.
    public func shutdown() async {
        await phone.shutdown()
        for server in servers { try? await server.shutdown() }
        try? FileManager.default.removeItem(at: storage)
    }
}
