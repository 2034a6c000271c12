import AsyncHTTPClient
import Foundation
import HandoverClient
import UniversalLinks

/// A simulated iPhone: installed apps, universal-link routing decided from AASA files fetched
/// over HTTP, custom-scheme prompts, one app in the foreground, force-quit, and a browser.
///
/// ```swift
/// let phone = SimulatedPhone(clock: clock, storage: folder, developerMode: true)
/// try await phone.install(app)        // fetches each associated domain's AASA, as iOS does
/// await phone.open(url, from: "launcher")
/// ```
///
/// Every app's receiver, the launcher's initiator and the phone share one clock, so a test
/// clock runs 20-second deadlines in microseconds.
public actor SimulatedPhone {
    /// Where a URL went.
    public enum Route: Sendable, Equatable {
        /// To an installed app, which was brought to the foreground.
        case app(String)
        /// To the browser, which fetched it; `status` is its HTTP status, or `nil` if the fetch failed.
        case browser(status: Int?)
        /// Nowhere: the reason.
        case refused(String)
    }

    /// The "Open in …?" prompt iOS shows for a custom scheme.
    public struct Prompt: Sendable, Equatable {
        public var from: String?
        public var to: String
        public var url: URL
    }

    public let clock: any Clock<Duration>
    /// Developer mode: plain http on loopback hosts is allowed, for AASA fetches and links.
    public let developerMode: Bool
    /// How long an app's start-up takes on a cold launch.
    public let startupTime: Duration
    private let storage: URL
    private let http: HTTPClient
    private let fetcher: AssociationFetcher

    private var installed: [String: InstalledApp] = [:]
    private var matchers: [String: AssociationMatcher] = [:]
    private var processes: [String: SimulatedAppProcess] = [:]
    private var launchers: [String: any LauncherCallbackHandler] = [:]
    private var routers: [String: XCallbackRouter] = [:]
    private var signedIn: [String: Bool] = [:]
    private var logoutAttempts: [String: Int] = [:]
    private var forceQuitBeforeNextLink: Set<String> = []

    /// The app in the foreground, `nil` for the home screen or the browser.
    public private(set) var foreground: String?
    /// Custom-scheme prompts shown.
    public private(set) var prompts: [Prompt] = []
    /// Every URL opened and where it went, in order.
    public private(set) var history: [(url: URL, route: Route)] = []
    /// Cold launches per app.
    public private(set) var launches: [String: Int] = [:]

    /// - Parameter storage: a folder for the apps' files (their journals).
    public init(clock: any Clock<Duration>, storage: URL, developerMode: Bool = false, startupTime: Duration = .milliseconds(500)) {
        self.clock = clock
        self.storage = storage
        self.developerMode = developerMode
        self.startupTime = startupTime
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        fetcher = AssociationFetcher(client: http)
    }

    // MARK: Installing

    /// Installs an app and fetches the AASA file of each of its associated domains, as iOS
    /// does at install time. A user is signed in to every target app.
    public func install(_ app: InstalledApp) async throws(SimulatorError) {
        guard installed[app.name] == nil else { throw SimulatorError("an app named \(app.name) is already installed") }
        for (domain, developer) in app.appLinkDomains where matchers[domain] == nil {
            if AssociationFetcher.isLoopback(domain) && !(developerMode && developer) {
                throw SimulatorError("\(domain) is a loopback domain: it needs developer mode on the phone and ?mode=developer")
            }
            matchers[domain] = try await fetcher.fetch(domain: domain, developerMode: developerMode && developer)
        }
        installed[app.name] = app
        if case .target = app.kind { signedIn[app.name] = true }
    }

    /// Lets the launcher app's callbacks reach its initiator: a `LogoutInitiator` (local mode)
    /// or a `ServerBackedLogout` (server mode).
    public func attach(_ initiator: any LauncherCallbackHandler, to app: String) {
        launchers[app] = initiator
    }

    /// Lets x-callback-url links on the launcher's own scheme (the replies of x-callback apps)
    /// reach its router.
    public func attach(_ router: XCallbackRouter, to app: String) {
        routers[app] = router
    }

    // MARK: State the apps keep on disk

    /// Whether a user is signed in to `app`: what the launcher's check after a callback reads.
    public func isSignedIn(_ app: String) -> Bool { signedIn[app] ?? false }

    func setSignedIn(_ app: String, _ value: Bool) { signedIn[app] = value }

    /// Counts logout attempts of an app (kept across force-quits), for the flaky behaviour.
    func countLogoutAttempt(_ app: String) -> Int {
        logoutAttempts[app, default: 0] += 1
        return logoutAttempts[app, default: 0]
    }

    // MARK: Routing

    /// Opens a URL as `UIApplication.open(_:options:)` would, without `universalLinksOnly`.
    @discardableResult
    public func open(_ url: URL, from source: String? = nil) async -> Route {
        let route = await decideAndDeliver(url, from: source)
        history.append((url, route))
        return route
    }

    /// Which app a universal link opens, from the fetched AASA files; `nil` for the browser.
    public func appClaiming(_ url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let domain = url.port.map { "\(host):\($0)" } ?? host
        guard let matcher = matchers[domain] else { return nil }
        return installed.values.sorted { $0.name < $1.name }.first { app in
            app.appLinkDomains.contains { $0.domain == domain }
                && matcher.decide(appID: app.appID, url: url.absoluteString).outcome == .match
        }?.name
    }

    private func decideAndDeliver(_ url: URL, from source: String?) async -> Route {
        guard let scheme = url.scheme?.lowercased() else { return .refused("the URL has no scheme") }
        switch scheme {
        case "https", "http":
            if scheme == "http" && !(developerMode && AssociationFetcher.isLoopback(url.host ?? "")) {
                return await browse(url)
            }
            guard let app = appClaiming(url), app != source else { return await browse(url) }
            return await deliver(url, to: app)
        default:
            guard let app = installed.values.first(where: { $0.customSchemes.contains(scheme) }) else {
                return .refused("no app declares the scheme \(scheme)")
            }
            prompts.append(Prompt(from: source, to: app.name, url: url))
            return await deliver(url, to: app.name)
        }
    }

    private func browse(_ url: URL) async -> Route {
        foreground = nil
        do {
            let response = try await http.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(5))
            _ = try await response.body.collect(upTo: 1 << 20)
            return .browser(status: Int(response.status.code))
        } catch {
            return .browser(status: nil)
        }
    }

    private func deliver(_ url: URL, to name: String) async -> Route {
        guard let app = installed[name] else { return .refused("\(name) is not installed") }
        if forceQuitBeforeNextLink.remove(name) != nil { forceQuit(name) }
        foreground = name
        switch app.kind {
        case .launcher:
            if let router = routers[name], let scheme = url.scheme?.lowercased(), scheme != "https", scheme != "http" {
                _ = await router.handle(url)
                return .app(name)
            }
            guard let initiator = launchers[name] else { return .refused("\(name) has no initiator attached") }
            _ = await initiator.handleCallback(url)
            return .app(name)
        case .target(let behaviour):
            if let process = processes[name] {
                _ = process.receive(url)
                return .app(name)
            }
            // Cold start: the link is handed over during start-up, before it finishes.
            guard let process = makeProcess(name, behaviour: behaviour) else { return .refused("\(name) could not start") }
            _ = process.receive(url)
            finishLaunchingLater(process)
            return .app(name)
        }
    }

    // MARK: Processes

    /// Starts an app that is not running (a warm start with no link).
    public func launch(_ name: String) {
        guard processes[name] == nil, let app = installed[name], case .target(let behaviour) = app.kind,
              let process = makeProcess(name, behaviour: behaviour) else { return }
        finishLaunchingLater(process)
    }

    /// Drops the app's memory. Its files (journal, sign-in state) stay; the next launch
    /// rebuilds it from its journal.
    public func forceQuit(_ name: String) {
        processes.removeValue(forKey: name)?.terminate()
        if foreground == name { foreground = nil }
    }

    /// Force-quits `name` right before the next link to it arrives (the `killed` behaviour).
    public func forceQuitBeforeNextLink(_ name: String) {
        forceQuitBeforeNextLink.insert(name)
    }

    /// Returns once every running app has finished the work its links started: callbacks
    /// opened, logouts done. A force-quit app is not waited for (its journal waits for a launch).
    public func waitUntilAppsAreIdle() async {
        for process in Array(processes.values) { await process.waitUntilIdle() }
    }

    /// Whether the app has a process.
    public func isRunning(_ name: String) -> Bool { processes[name] != nil }

    private func makeProcess(_ name: String, behaviour: AppBehaviour) -> SimulatedAppProcess? {
        let folder = storage.appendingPathComponent(name).appendingPathComponent("journal")
        guard let process = try? SimulatedAppProcess(name: name, behaviour: behaviour, phone: self, journalFolder: folder, clock: clock,
                                                     callbackAllowlist: installed[name]?.callbackAllowlist) else {
            return nil
        }
        processes[name] = process
        launches[name, default: 0] += 1
        return process
    }

    private func finishLaunchingLater(_ process: SimulatedAppProcess) {
        let (clock, startupTime) = (clock, startupTime)
        Task {
            do { try await clock.sleep(for: startupTime) } catch { return }
            await self.finishLaunching(process)
        }
    }

    private func finishLaunching(_ process: SimulatedAppProcess) {
        // A process force-quit during its start-up never finishes launching.
        guard processes[process.name] === process else { return }
        process.finishLaunching()
    }

    /// Stops every app and the HTTP client.
    public func shutdown() async {
        for name in Array(processes.keys) { forceQuit(name) }
        try? await http.shutdown()
    }
}
