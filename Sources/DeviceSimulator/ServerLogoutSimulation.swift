import Clocks
import Foundation
import HandoverProtocol
import HandoverClient

/// A shift handover on a simulated phone against a real Handover server: the server issues the
/// links and keeps the deadlines; the phone's launcher runs a ``HandoverClient/ServerBackedLogout``.
/// `handover simulate logout --server` runs it.
///
/// With an admin key it registers what it needs, reusing entries by name: a launcher
/// `sim-launcher` (`ABCDE12345.com.example.launcher`, role launcher), one target app per
/// behaviour named `sim-<behaviour>` whose logout action is on the simulator's loopback server
/// (`http://127.0.0.1:<port>/apps/<name>/logout`: the server must run in developer mode), and a
/// device. With a device id and key instead it registers nothing: the registry must already hold
/// those apps, with the same loopback port, as its only target apps.
///
/// The phone installs the launcher with the server's host as its associated domain, so it
/// fetches the server's real AASA file (which claims `/ulc/cb/*` for launchers) and callback
/// links reach the launcher as universal links; the target apps use the loopback AASA file.
public struct ServerLogoutSimulation: Sendable {
    /// How the simulator signs in to the server.
    public enum Access: Sendable {
        /// An admin key: register the apps, the launcher and a device first.
        case admin(key: String)
        /// A registered device: register nothing.
        case device(id: UUID, key: String)
    }

    /// How time passes.
    public enum Time: Sendable {
        /// Real time: the server's own scheduler fires the deadlines.
        case real
        /// A clock that runs on its own, such as a ``SpedUpClock``: the server's scheduler fires
        /// the deadlines, on a server clock of the same speed.
        case running(any Clock<Duration>)
        /// A test clock for the phone and the launcher; `afterStep` is called after every step
        /// with its length, to move the server's clock and fire its deadlines.
        case simulated(TestClock<Duration>, step: Duration, afterStep: @Sendable (Duration) async -> Void)

        var isSimulated: Bool {
            if case .simulated = self { return true }
            return false
        }
    }

    /// A person signed in to some of the apps before the hand-over, whose backends must hear of
    /// it (OpenID Connect Back-Channel Logout). Needs ``Access/admin(key:)`` and a server that
    /// writes its mail into `mailDrop` (`handover serve --mail-drop`).
    public struct SignedInUser: Sendable {
        /// The address the sign-in link is mailed to.
        public var email: String
        /// The server's mail-drop folder.
        public var mailDrop: URL
        /// For each app name (`sim-conformant`): the Back-Channel Logout URI its backend listens
        /// at. The first of these apps signs in by email link, the others by Native SSO.
        public var backends: [String: URL]

        public init(email: String, mailDrop: URL, backends: [String: URL]) {
            self.email = email
            self.mailDrop = mailDrop
            self.backends = backends
        }
    }

    /// An app not logged out by ULC.
    public struct OtherApp: Sendable {
        public enum Method: Sendable {
            /// Logged out by an x-callback-url on its own scheme (the app's name): the phone
            /// shows iOS's prompt before opening it; the app answers as `behaviour` says.
            case xCallback(AppBehaviour)
            /// Nothing on the phone: its backend, at this Back-Channel Logout URI, ends it.
            case backendOnly(backchannelLogoutURI: URL)
        }

        public var name: String
        public var method: Method

        public init(name: String, method: Method) {
            self.name = name
            self.method = method
        }

        /// The behaviour its outcome is judged by (a backend-only app must succeed).
        public var behaviour: AppBehaviour {
            if case .xCallback(let behaviour) = method { return behaviour }
            return .conformant
        }

        /// `x-callback` or `backend-only`.
        public var methodName: String {
            if case .xCallback = method { return "x-callback" }
            return "backend-only"
        }
    }

    /// What happened.
    public struct Result: Sendable {
        /// The apps the simulation played, in the order given.
        public var apps: [LogoutSimulation.AppResult]
        /// The run's other apps, which the simulation did not play (registered on the server, with
        /// nothing on the simulated phone; with a device key the run covers every target app), as
        /// the run reported them: such an app usually times out, and fails the run.
        public var notPlayed: [LogoutReport.Entry] = []
        public var report: LogoutReport
        /// The run's final status on the server: `completed` or `failed`.
        public var runStatus: String
        /// Custom-scheme prompts the phone showed (none are expected).
        public var prompts: Int
        /// With a ``SignedInUser``: each app's session id before the hand-over.
        public var sessions: [String: String] = [:]
        /// With a ``SignedInUser``: each app's backend side as the run's report last showed it.
        public var backends: [String: LogoutRunView.Item.BackendLogout] = [:]
    }

    public var server: URL
    public var access: Access
    public var behaviours: [AppBehaviour]
    /// Each app's deadline on the server, in seconds.
    public var timeoutSeconds: Int
    /// Times the server reissues a link after a deadline.
    public var resends: Int
    /// The loopback port for the apps' AASA file and logout actions; 0 picks a free one.
    public var appPort: Int
    /// How long the launcher waits for a callback before reading the run again.
    public var pollInterval: Duration
    /// Called as each app finishes, in the order they finish, while the others are pending.
    public var progress: (@Sendable (LogoutSimulation.AppResult) async -> Void)?
    /// Apps logged out by x-callback-url or by their backend only, besides the ULC apps of
    /// ``behaviours`` (admin access only).
    public var otherApps: [OtherApp] = []
    /// Someone signed in before the hand-over, whose apps' backends are told of it.
    public var signedInUser: SignedInUser?
    /// Called after the run whenever an app's backend side changes, until every one is settled
    /// (delivered, refused or failed) or ``backendPatience`` has passed.
    public var backendProgress: (@Sendable (String, LogoutRunView.Item.BackendLogout) async -> Void)?
    /// How long, on the simulation's clock, to follow the backends after the run.
    public var backendPatience: Duration = .seconds(600)

    public init(server: URL, access: Access, behaviours: [AppBehaviour], timeoutSeconds: Int = 20, resends: Int = 2,
                appPort: Int = 0, pollInterval: Duration = .milliseconds(200)) {
        self.server = server
        self.access = access
        self.behaviours = behaviours
        self.timeoutSeconds = timeoutSeconds
        self.resends = resends
        self.appPort = appPort
        self.pollInterval = pollInterval
    }

    static let launcherName = "sim-launcher"
    static let launcherAppID = "\(LogoutSimulation.teamID).com.example.launcher"

    /// Names apps `sim-<behaviour>`, numbering repeats (`sim-conformant-2`).
    func appNames() -> [String] {
        LogoutSimulation(behaviours: behaviours).appNames().map { "sim-\($0)" }
    }

    /// Runs the handover on the server and returns each app's outcome.
    public func run(time: Time = .real) async throws -> Result {
        guard let host = server.host else { throw SimulatorError("--server: \(server.absoluteString) has no host") }
        let names = appNames()
        let loopback = try await LoopbackServer.start(port: appPort)
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let storage = base.appendingPathComponent("handover-simulate-\(UUID().uuidString)")
        let clock: any Clock<Duration>
        switch time {
        case .real: clock = ContinuousClock()
        case .running(let running): clock = running
        case .simulated(let test, _, _): clock = test
        }
        let phone = SimulatedPhone(clock: clock, storage: storage, developerMode: true)
        defer { try? FileManager.default.removeItem(at: storage) }
        do {
            let result = try await run(names: names, host: host, loopback: loopback, phone: phone, time: time, clock: clock, storage: storage)
            await phone.shutdown()
            try? await loopback.shutdown()
            return result
        } catch {
            await phone.shutdown()
            try? await loopback.shutdown()
            throw error
        }
    }

    private func run(names: [String], host: String, loopback: LoopbackServer, phone: SimulatedPhone, time: Time,
                     clock: any Clock<Duration>, storage: URL) async throws -> Result {
        loopback.setRoute("/.well-known/apple-app-site-association",
                          .init(contentType: "application/json", body: LogoutSimulation.associationFile(apps: names)))
        loopback.setRoute("/", .init(body: "<h1>Handover simulator</h1>\n"))
        let (deviceID, deviceKey, registered) = try await register(names: names, loopback: loopback)
        let others = try await registerOtherApps()
        let appIDs = registered.map { $0 + others }
        let allNames = names + otherApps.map(\.name)
        let allBehaviours = behaviours + otherApps.map(\.behaviour)
        var sessions: [String: String] = [:]
        if let signedInUser {
            guard case .admin(let key) = access, let appIDs else {
                throw SimulatorError("a signed-in user needs an admin key, to give the apps their back-channel logout URIs")
            }
            let signIn = SimulatedSignIn(server: server, registry: FleetRegistry(baseURL: server, adminKey: key), user: signedInUser,
                                         sharedStore: storage.appendingPathComponent("shared-session"))
            sessions = try await signIn.run(apps: Array(zip(allNames, appIDs)).map { (name: $0.0, id: $0.1) }, deviceID: deviceID)
        }

        let serverDomain = server.port.map { "\(host):\($0)" } ?? host
        let developer = AssociationFetcher.isLoopback(serverDomain) ? "?mode=developer" : ""
        try await phone.install(InstalledApp(name: "launcher", teamID: LogoutSimulation.teamID, bundleID: "com.example.launcher",
                                             associatedDomains: ["applinks:\(serverDomain)\(developer)"], kind: .launcher))
        let appDomain = "applinks:127.0.0.1:\(loopback.port)?mode=developer"
        for (name, behaviour) in zip(names, behaviours) {
            try await phone.install(InstalledApp(name: name, teamID: LogoutSimulation.teamID, bundleID: "com.example.\(name)",
                                                 associatedDomains: [appDomain], kind: .target(behaviour)))
            await phone.launch(name)
            if behaviour == .killed { await phone.forceQuitBeforeNextLink(name) }
        }
        for app in otherApps {
            guard case .xCallback(let behaviour) = app.method else { continue }  // backend-only: nothing on the phone
            try await phone.install(InstalledApp(name: app.name, teamID: LogoutSimulation.teamID, bundleID: "com.example.\(app.name)",
                                                 associatedDomains: [], customSchemes: [app.name], kind: .target(behaviour)))
            await phone.launch(app.name)
        }
        let behaviourOf = Dictionary(uniqueKeysWithValues: zip(allNames, allBehaviours))
        let progress = self.progress
        let logout = ServerBackedLogout(
            server: FleetServer(baseURL: server, deviceID: deviceID, deviceKey: deviceKey),
            opener: PhoneURLOpener(phone: phone, app: "launcher"),
            clock: phone.clock, pollInterval: pollInterval,
            verifySignedOut: { app in await !phone.isSignedIn(app) },
            itemFinished: { item, took in
                guard let progress, let behaviour = behaviourOf[item.app] else { return }
                let outcome = item.status.outcome ?? .timedOut
                await progress(LogoutSimulation.AppResult(
                    app: item.app, behaviour: behaviour, outcome: outcome, attempts: item.attempts,
                    durationMilliseconds: took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000,
                    reason: nil))
            })
        await phone.attach(logout, to: "launcher")

        // With a signed-in user, the backends are followed while the run goes on (their tokens
        // leave when it starts); with a test clock, after it, as time moves only for the run.
        let fleet = FleetServer(baseURL: server, deviceID: deviceID, deviceKey: deviceKey)
        var follower: Task<[String: LogoutRunView.Item.BackendLogout], any Error>?
        if signedInUser != nil, !time.isSimulated {
            follower = Task {
                while await logout.currentRun == nil { try await clock.sleep(for: pollInterval) }
                guard let run = await logout.currentRun?.id else { return [:] }
                return try await followBackends(run: run, on: fleet, time: time, clock: clock)
            }
        }
        defer { follower?.cancel() }
        let report: LogoutReport
        switch time {
        case .real:
            try await Task.sleep(for: .seconds(1))  // every app finishes its start-up first
            report = try await logout.run(apps: appIDs)
        case .running(let clock):
            try await clock.sleep(for: .seconds(1))
            report = try await logout.run(apps: appIDs)
        case .simulated(let clock, let step, let afterStep):
            await clock.advance(by: .seconds(1))
            let outcome = await SimulatedTimeDriver.run(clock: clock, step: step, afterStep: afterStep) {
                () -> Swift.Result<LogoutReport, FleetServerError> in
                do throws(FleetServerError) {
                    return .success(try await logout.run(apps: appIDs))
                } catch {
                    return .failure(error)
                }
            }
            guard let outcome else { throw SimulatorError("the simulated run did not finish within an hour of simulated time") }
            report = try outcome.get()
        }
        let status = await logout.currentRun?.status.rawValue ?? "unknown"
        let apps = zip(allNames, allBehaviours).compactMap { name, behaviour -> LogoutSimulation.AppResult? in
            guard let entry = report.entries.first(where: { $0.app == name }) else { return nil }
            return LogoutSimulation.AppResult(app: name, behaviour: behaviour, outcome: entry.outcome, attempts: entry.attempts,
                                              durationMilliseconds: entry.durationMilliseconds, reason: entry.reason)
        }
        var result = Result(apps: apps, report: report, runStatus: status, prompts: await phone.prompts.count, sessions: sessions)
        result.notPlayed = report.entries.filter { !allNames.contains($0.app) }
        if let follower {
            result.backends = try await follower.value
        } else if signedInUser != nil, let runID = UUID(uuidString: report.runID) {
            result.backends = try await followBackends(run: runID, on: fleet, time: time, clock: clock)
        }
        return result
    }

    /// Reads the run until every app's backend side is settled, telling ``backendProgress`` of
    /// each change; returns the last states by app name.
    private func followBackends(run: UUID, on fleet: FleetServer, time: Time, clock: any Clock<Duration>) async throws
        -> [String: LogoutRunView.Item.BackendLogout] {
        var shown: [String: LogoutRunView.Item.BackendLogout] = [:]
        var waited = Duration.zero
        while true {
            let view = try await fleet.run(run)
            for item in view.items {
                guard let backend = item.backend, shown[item.app] != backend else { continue }
                shown[item.app] = backend
                await backendProgress?(item.app, backend)
            }
            let expected = signedInUser?.backends.count ?? 0
            if shown.count >= expected, shown.values.allSatisfy({ $0.state != .pending }) { return shown }
            guard waited < backendPatience else { return shown }
            switch time {
            case .simulated(let test, let step, let afterStep):
                await test.advance(by: step)
                await afterStep(step)
                waited += step
            case .real, .running:
                try await clock.sleep(for: pollInterval)
                waited += pollInterval
            }
        }
    }

    /// Registers (or reuses) the launcher, the apps and a device; returns the device and the
    /// apps' ids, or `nil` ids in device mode (the run then covers every target app).
    private func register(names: [String], loopback: LoopbackServer) async throws -> (UUID, String, [UUID]?) {
        switch access {
        case .device(let id, let key):
            return (id, key, nil)
        case .admin(let adminKey):
            let registry = FleetRegistry(baseURL: server, adminKey: adminKey)
            let existing = try await registry.apps()
            if let launcher = existing.first(where: { $0.name == Self.launcherName }) {
                guard launcher.role == .launcher, launcher.appIDs.contains(Self.launcherAppID) else {
                    throw SimulatorError("the registry's app \(Self.launcherName) is not the simulator's launcher (\(Self.launcherAppID), role launcher); delete it or use another server")
                }
            } else {
                _ = try await registry.createApp(.init(name: Self.launcherName, role: .launcher, appIDs: [Self.launcherAppID]))
            }
            var ids: [UUID] = []
            for name in names {
                let action = "\(loopback.origin)/apps/\(name)/logout"
                let appID = "\(LogoutSimulation.teamID).com.example.\(name)"
                if let app = existing.first(where: { $0.name == name }) {
                    if app.role == .target, app.logoutAction == action, app.appIDs == [appID],
                       app.deadlineSeconds == timeoutSeconds, app.maxReissues == resends {
                        ids.append(try app.uuid)
                        continue
                    }
                    try await registry.deleteApp(app.id)  // made by an earlier run with another port or timing
                }
                let created = try await registry.createApp(.init(name: name, role: .target, appIDs: [appID], logoutAction: action,
                                                                 deadlineSeconds: timeoutSeconds, maxReissues: resends))
                ids.append(try created.uuid)
            }
            let device = try await registry.createDevice(name: "simulated-phone")
            guard let deviceID = UUID(uuidString: device.device.id) else {
                throw SimulatorError("--server: the registry answered a device id that is not a UUID: \(device.device.id)")
            }
            return (deviceID, device.key, ids)
        }
    }

    /// Registers ``otherApps`` afresh (an earlier run's entries of the same name are replaced).
    private func registerOtherApps() async throws -> [UUID] {
        guard !otherApps.isEmpty, case .admin(let adminKey) = access else { return [] }
        let registry = FleetRegistry(baseURL: server, adminKey: adminKey)
        let existing = try await registry.apps()
        var ids: [UUID] = []
        for app in otherApps {
            if let old = existing.first(where: { $0.name == app.name }) { try await registry.deleteApp(old.id) }
            var input = Components.Schemas.AppInput(name: app.name, role: .target, appIDs: ["\(LogoutSimulation.teamID).com.example.\(app.name)"],
                                                    deadlineSeconds: timeoutSeconds, maxReissues: resends)
            switch app.method {
            case .xCallback:
                input.logoutMethod = .xCallback
                input.logoutAction = "\(app.name)://x-callback-url/logout"
            case .backendOnly(let uri):
                input.logoutMethod = .backendOnly
                input.backchannelLogoutURI = uri.absoluteString
            }
            ids.append(try await registry.createApp(input).uuid)
        }
        return ids
    }
}
