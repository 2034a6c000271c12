import Fluent
import LinkCallbacks
import Foundation
import HandoverCore
import HandoverProtocol
import NIOConcurrencyHelpers
import NIOCore
import SessionTokens
import AsyncHTTPClient
import Vapor

/// What routes and services share: configuration read once at start, and the live parts.
struct ServerContext: Sendable {
    let clock: ServerClock
    let origin: PublicOrigin
    let nonces: CallbackNonce
    let hub: RunEventHub
    let notifier: RunChangeNotifier
    let metrics: ServerMetrics
    let allowsLoopbackWebhooks: Bool
    /// Seals secrets kept in the database (``ServerSecrets``).
    var sealer: SecretSealer?
    /// Which addresses webhook deliveries may reach.
    var webhookTargets = WebhookTargetPolicy(allowsPrivate: false)
    let associationFiles = AssociationFileCache()
    /// Every limit on unauthenticated writes and guesses (``RateLimits``).
    let rateLimits = RateLimits()
    /// How long a 429 waits before it is sent (``ServerConfiguration/rateLimitedDelay``).
    var rateLimitedDelay: TimeAmount = .zero
    /// Whether the client address is taken from `X-Forwarded-For` (a trusted TLS proxy in front).
    var trustsForwardedFor = false
    /// Records callbacks many to a transaction (group commit).
    /// Counts requests, and gives the caches' memory back once they stop.
    let idleMemory = IdleMemoryRelease()
    /// The shift change's group commits: callbacks, and run starts.
    let callbacks = GroupCommit<(callback: LogoutRunService.Callback, at: Date), LogoutRunService.Recording>()
    let runStarts = GroupCommit<LogoutRunService.RunStart, LogoutRunView>(maxBatch: 64)
    /// The dashboard overview's live updates, shared by every open dashboard.
    let liveOverview = LiveOverview()
    /// Queues out-of-band operations' writes on SQLite (see ``WriteGate``).
    var operationWrites = WriteGate(serializes: false)
    /// Whether logout actions may be http on loopback with a port (``ServerConfiguration/developerMode``).
    var developerMode: Bool = false
    /// A second origin of this server for the tester's hostile round (``ServerConfiguration/testerHostileURL``).
    var configuredHostileOrigin: URL?
    /// Drives simulated apps for the tester, when the command line passed one in.
    var testerSimulator: (any TesterSimulator)?
    /// Fetches association files for the tester (no redirects).
    var outboundClient: HTTPClient?
    /// The fleet's MDM and its policy; nil: no MDM is asked anything.
    var mdm: MDMConfiguration?
    /// The server's own sessions (access and refresh tokens).
    var sessions: SessionAuthority?
    /// Sign in with Apple, when configured.
    var apple: AppleSignInService?
    /// Sends sign-in links, when SMTP is configured.
    var mailer: (any MailTransport)?
    /// Sends out-of-band operations by APNs, when configured.
    var push: PushSender?
    /// The custom scheme of `x-callback-link` operations (the phone app's).
    var outOfBandLinkScheme: String = "handover"
    /// Webhook and Back-Channel Logout deliveries on their way, by destination, across passes.
    let webhookLanes = DeliveryLanes()
    let backChannelLanes = DeliveryLanes()
    /// Work started by requests that outlives them (the tester driving a simulated app).
    let detachedWork = DetachedWork()

    /// Where the tester's own callbacks go: the public origin, except that on 127.0.0.1 it is
    /// `localhost`, a host name an app's allowlist can hold (allowlists take no IP addresses).
    var testerCallbackOrigin: URL {
        guard publicURL.host == "127.0.0.1", var parts = URLComponents(url: publicURL, resolvingAgainstBaseURL: false) else {
            return publicURL
        }
        parts.host = "localhost"
        return parts.url ?? publicURL
    }

    /// A second name of this server, outside any allowlist that holds the callback host: the
    /// configured one, or on loopback `127.0.0.1`, an IP address no allowlist can name.
    var testerHostileOrigin: URL? {
        if let configuredHostileOrigin { return configuredHostileOrigin }
        guard publicURL.host == "127.0.0.1" || publicURL.host == "localhost",
              var parts = URLComponents(url: publicURL, resolvingAgainstBaseURL: false) else { return nil }
        parts.host = "127.0.0.1"
        return parts.url
    }

    /// The policy a target app's logout action must pass.
    var logoutActionPolicy: CallbackPolicy { developerMode ? CallbackPolicy(allowsLoopbackHTTP: true) : .default }

    /// The public origin used in links and association files.
    var publicURL: URL { origin.url }

    func runs(_ database: Database) -> LogoutRunService {
        var runs = LogoutRunService(database: database, clock: clock, publicURL: publicURL, nonces: nonces, changes: notifier, metrics: metrics,
                                    mdm: mdm.map { MDMPolicy(connector: $0.connector.name, action: $0.action, dryRun: $0.dryRun) })
        // A run that starts ends the device's sessions, pushes and backend-only apps in its own transaction.
        runs.handOver = sessions.map { HandOverSignOut(sessions: $0, runs: runs) }
        return runs
    }

    /// What deliveries may reach, and which schemes registered URLs may use.
    var outboundTargets: OutboundTargets {
        OutboundTargets(policy: webhookTargets, allowsHTTPEverywhere: allowsLoopbackWebhooks)
    }

    /// Registers apps, with what that needs and nothing more.
    var appRegistrar: AppRegistrar {
        AppRegistrar(clock: clock, actionPolicy: logoutActionPolicy, targets: outboundTargets,
                     files: AssociationFiles(publicURL: publicURL, claimsEmailSignIn: mailer != nil), cache: associationFiles)
    }

    /// Subscribes webhook receivers and rotates their secrets.
    var webhookRegistrar: WebhookRegistrar {
        WebhookRegistrar(clock: clock, targets: outboundTargets, sealer: sealer)
    }

    /// The ULC conformance tester on `database`.
    func tester(_ database: Database) -> ConformanceTester {
        ConformanceTester(database: database, clock: clock, nonces: nonces, notifier: notifier, callbackOrigin: testerCallbackOrigin,
                          hostileOrigin: testerHostileOrigin)
    }

    func operations(_ database: Database) -> OperationService {
        OperationService(database: database, clock: clock, publicURL: publicURL, developerMode: developerMode, metrics: metrics,
                         notifier: notifier, writes: operationWrites, push: push, linkScheme: outOfBandLinkScheme)
    }

    /// Records a callback through the group-commit writer; returns once it is committed.
    func recordCallback(_ callback: LogoutRunService.Callback, on application: Application) async throws -> LogoutRunService.Recording {
        let runs = runs(application.db)
        return try await callbacks.submit((callback, clock.now()), writers: runs.groupCommitWriters) { await runs.record($0) }
    }

    /// Starts a run through the group-commit writer; returns once it is committed.
    func startRun(_ start: LogoutRunService.RunStart, on application: Application) async throws -> LogoutRunView {
        let runs = runs(application.db)
        let reads = application.readDB
        return try await runStarts.submit(start, writers: runs.groupCommitWriters) { await runs.createRuns($0, readingAppsOn: reads) }
    }
}

/// The public origin, known only once the port is bound when port 0 was asked for.
final class PublicOrigin: Sendable {
    private let value: NIOLockedValueBox<URL>

    init(_ url: URL) { value = NIOLockedValueBox(url) }

    var url: URL { value.withLockedValue { $0 } }

    func set(_ url: URL) { value.withLockedValue { $0 = url } }
}

/// Tasks that outlive the request that started them; cancelled when the server shuts down.
final class DetachedWork: Sendable {
    private let tasks = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])

    func start(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        let task = Task {
            await work()
            self.tasks.withLockedValue { $0[id] = nil }
        }
        tasks.withLockedValue { $0[id] = task }
    }

    func cancelAll() async {
        let running = tasks.withLockedValue { Array($0.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}

extension ServerContext {
    /// The client's address for rate limits: the peer's, or behind a trusted proxy
    /// (``ServerConfiguration/trustsForwardedFor``) the last address in `X-Forwarded-For`, the
    /// one the proxy itself added.
    func clientAddress(_ request: Request) -> String {
        if trustsForwardedFor, let forwarded = request.headers[.xForwardedFor].last?.split(separator: ",").last {
            let address = forwarded.trimmingCharacters(in: .whitespaces)
            if !address.isEmpty { return address }
        }
        return request.remoteAddress?.ipAddress ?? "unknown"
    }
}
