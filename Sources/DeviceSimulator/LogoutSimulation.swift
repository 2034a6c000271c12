import Clocks
import Foundation
import HandoverClient
import LinkCallbacks

/// A shift handover on a simulated phone: a launcher logs out a list of apps with given
/// behaviours, in simulated time. `handover simulate logout` runs it.
///
/// It serves the apps' AASA file from an in-process loopback HTTP server, installs the apps
/// (each fetches it over HTTP), signs a user in to each, and runs a real `LogoutInitiator` in
/// the launcher. After each success callback the launcher checks that the user is signed out.
/// Apps of ``xCallbackBehaviours`` have no ULC: the launcher opens their x-callback-url (iOS
/// asks the person first, counted in ``Result/prompts``) and they answer on the launcher's
/// scheme, through its `XCallbackRouter`.
public struct LogoutSimulation: Sendable {
    /// One app's line in the result.
    public struct AppResult: Sendable, Equatable, Codable {
        public var app: String
        public var behaviour: AppBehaviour
        public var outcome: LogoutReport.Outcome
        public var attempts: Int
        public var durationMilliseconds: Int64
        public var reason: String?
    }

    /// What happened.
    public struct Result: Sendable {
        public var apps: [AppResult]
        public var report: LogoutReport
        /// Custom-scheme prompts the phone showed: none for ULC apps (universal links), one for
        /// each x-callback link opened and one for each answer back to the launcher's scheme.
        public var prompts: Int
        /// Simulated time, first send to last outcome.
        public var simulatedMilliseconds: Int64
    }

    public var behaviours: [AppBehaviour]
    /// Apps logged out by x-callback-url (after the ULC apps), named `x-<behaviour>`: each
    /// declares its name as its scheme.
    public var xCallbackBehaviours: [AppBehaviour]
    public var timeout: Duration
    public var resends: Int

    public init(behaviours: [AppBehaviour], xCallbackBehaviours: [AppBehaviour] = [], timeout: Duration = .seconds(20),
                resends: Int = 2) {
        self.behaviours = behaviours
        self.xCallbackBehaviours = xCallbackBehaviours
        self.timeout = timeout
        self.resends = resends
    }

    static let teamID = "ABCDE12345"

    /// Names apps after their behaviour, numbering repeats (`conformant`, `conformant-2`).
    func appNames() -> [String] { Self.names(of: behaviours) }

    /// The x-callback apps' names: `x-conformant`, `x-conformant-2`.
    func xCallbackAppNames() -> [String] { Self.names(of: xCallbackBehaviours).map { "x-\($0)" } }

    private static func names(of behaviours: [AppBehaviour]) -> [String] {
        var seen: [AppBehaviour: Int] = [:]
        return behaviours.map { behaviour in
            seen[behaviour, default: 0] += 1
            let count = seen[behaviour, default: 1]
            return count == 1 ? behaviour.rawValue : "\(behaviour.rawValue)-\(count)"
        }
    }

    /// The AASA file: each app claims `/apps/<name>/*`, the launcher `/launcher/*`.
    public static func associationFile(apps: [String]) -> String {
        let details = (apps.map { ("com.example.\($0)", "/apps/\($0)/*") } + [("com.example.launcher", "/launcher/*")])
            .map { #"{"appIDs":["\#(teamID).\#($0.0)"],"components":[{"/":"\#($0.1)"}]}"# }
        return #"{"applinks":{"details":[\#(details.joined(separator: ","))]}}"#
    }

    /// Runs the handover and returns each app's outcome.
    public func run() async throws -> Result {
        let names = appNames()
        let server = try await LoopbackServer.start()
        // The phone's "disk": tmpfs when there is one, where fsync costs nothing, so that real
        // I/O does not let simulated time run ahead of the apps.
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let storage = base.appendingPathComponent("handover-simulate-\(UUID().uuidString)")
        let clock = TestClock()
        let phone = SimulatedPhone(clock: clock, storage: storage, developerMode: true)
        defer { try? FileManager.default.removeItem(at: storage) }
        do {
            let result = try await run(names: names, server: server, phone: phone, clock: clock, storage: storage)
            await phone.shutdown()
            try? await server.shutdown()
            return result
        } catch {
            await phone.shutdown()
            try? await server.shutdown()
            throw error
        }
    }

    private func run(names: [String], server: LoopbackServer, phone: SimulatedPhone, clock: TestClock<Duration>,
                     storage: URL) async throws -> Result {
        server.setRoute("/.well-known/apple-app-site-association",
                        .init(contentType: "application/json", body: Self.associationFile(apps: names)))
        server.setRoute("/", .init(body: "<h1>Handover simulator</h1>\n"))
        let domain = "applinks:127.0.0.1:\(server.port)?mode=developer"
        try await phone.install(InstalledApp(name: "launcher", teamID: Self.teamID, bundleID: "com.example.launcher",
                                             associatedDomains: [domain], customSchemes: ["launcher"], kind: .launcher))
        for (name, behaviour) in zip(names, behaviours) {
            try await phone.install(InstalledApp(name: name, teamID: Self.teamID, bundleID: "com.example.\(name)",
                                                 associatedDomains: [domain], kind: .target(behaviour)))
            await phone.launch(name)
            if behaviour == .killed { await phone.forceQuitBeforeNextLink(name) }
        }
        let xNames = xCallbackAppNames()
        for (name, behaviour) in zip(xNames, xCallbackBehaviours) {
            try await phone.install(InstalledApp(name: name, teamID: Self.teamID, bundleID: "com.example.\(name)",
                                                 associatedDomains: [], customSchemes: [name], kind: .target(behaviour)))
            await phone.launch(name)
            if behaviour == .killed { await phone.forceQuitBeforeNextLink(name) }
        }
        let targets = names.map { TargetApp(id: $0, logoutAction: URL(string: "\(server.origin)/apps/\($0)/logout")!) }
            + xNames.map { TargetApp(id: $0, logoutAction: URL(string: "\($0)://x-callback-url/logout")!) }
        let initiator = try LogoutInitiator(
            apps: targets,
            configuration: InitiatorConfiguration(callbackBase: URL(string: "\(server.origin)/launcher/ulc/cb")!,
                                                  timeout: timeout, resends: resends, xCallbackReplyScheme: "launcher"),
            opener: PhoneURLOpener(phone: phone, app: "launcher"),
            journal: InitiatorJournal(file: storage.appendingPathComponent("launcher/run.json")),
            clock: clock,
            verifySignedOut: { app in await !phone.isSignedIn(app.id) })
        await phone.attach(initiator, to: "launcher")
        let router = XCallbackRouter(scheme: "launcher", policy: CallbackPolicy(), opener: PhoneURLOpener(phone: phone, app: "launcher"))
        initiator.takeReplies(through: router)
        await phone.attach(router, to: "launcher")
        // Let every app finish its start-up before the handover begins.
        await clock.advance(by: .seconds(1))
        let start = clock.now
        guard let report = await SimulatedTimeDriver.run(clock: clock, { await initiator.run() }) else {
            throw SimulatorError("the simulated run did not finish within an hour of simulated time")
        }
        let elapsed = start.duration(to: clock.now)
        let apps = zip(names + xNames, behaviours + xCallbackBehaviours).compactMap { name, behaviour -> AppResult? in
            guard let entry = report.entries.first(where: { $0.app == name }) else { return nil }
            return AppResult(app: name, behaviour: behaviour, outcome: entry.outcome, attempts: entry.attempts,
                             durationMilliseconds: entry.durationMilliseconds, reason: entry.reason)
        }
        return Result(apps: apps, report: report, prompts: await phone.prompts.count,
                      simulatedMilliseconds: elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
