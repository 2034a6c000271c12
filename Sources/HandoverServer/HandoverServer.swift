import AsyncHTTPClient
import HandoverConfiguration
import HandoverProtocol
import Foundation
import HandoverTransport
import Mail
import HandoverCore
import LinkCallbacks
import SessionTokens
import MDMConnectors
import OutboundHTTP
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import Vapor

/// A running Handover server: the JSON API, callback pages, association files, the deadline
/// scheduler and the webhook dispatcher.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0                      // any free port
/// let server = try await HandoverServer.start(configuration)
/// print(server.baseURL)                       // http://127.0.0.1:53187
/// try await server.shutdown()
/// ```
public final class HandoverServer: Sendable {
    /// The Vapor application.
    public let application: Application
    /// The configuration it was started with.
    public let configuration: ServerConfiguration
    /// The port it listens on (the real one when 0 was asked for).
    public let port: Int
    let clock: ServerClock
    /// The server's database, opened (closed by ``shutdown()``).
    package let connections: DatabaseConnections
    /// The server's database, as its services reach it.
    package let databases: ServerDatabases
    let origin: PublicOrigin
    /// The server's own sessions (access and refresh tokens).
    let sessions: SessionAuthority
    /// The logout runs on a database: a run that starts ends the device's sessions, pushes and
    /// backend-only apps in its own transaction (``HandOverSignOut``).
    let runs: LogoutRunService.OnDatabase
    /// The out-of-band operations on a database.
    let operations: OperationService.OnDatabase
    let testerLaunch: TesterLaunch
    /// Counts requests, and gives the caches' memory back once they stop.
    let idleMemory: IdleMemoryRelease
    /// Work started by requests that outlives them (the tester driving a simulated app).
    let detachedWork: DetachedWork
    /// Webhook and Back-Channel Logout deliveries on their way, by destination, across passes.
    let webhookLanes = DeliveryLanes()
    let backChannelLanes = DeliveryLanes(), signalLanes = DeliveryLanes()
    /// Which addresses deliveries may reach.
    let webhookTargets: WebhookTargetPolicy
    /// Seals secrets kept in the database (``ServerSecrets``).
    let sealer: SecretSealer?
    /// Delivers webhooks, logout tokens and MDM calls, and fetches association files (no redirects).
    let outboundClient: HTTPClient
    /// Sends out-of-band operations by APNs, when configured.
    let push: PushSender?
    /// The audit log's key, checkpoints and self-check.
    let audit: AuditService
    /// The audit log's stream to the SIEMs; nil when none is configured.
    let siem: SIEMStream?
    /// The rate limits, and the refusals of unauthenticated requests summarised for the audit log.
    let throttle: Throttle
    /// Polls the identity provider for security events; nil without a poll URL.
    let signalsPollClient: SharedSignalsPollClient?
    /// Every open event stream, ended with the credential that opened it.
    let revocations: CredentialRevocations
    /// Each API key's last use, noted in memory and written by a background pass.
    let keyUses: KeyUses
    /// The devices' alerts, and their mail.
    let alerts: DeviceAlerts
    /// The background services (swift-service-lifecycle) and the task that runs their group.
    private let background: NIOLockedValueBox<(group: ServiceGroup, task: Task<Void, Never>)?>

    /// The URL to reach this server on loopback.
    public var baseURL: URL {
        var loopback = configuration
        loopback.publicURL = nil
        return loopback.resolvedPublicURL
    }
    /// The public origin used in links.
    public var publicURL: URL { origin.url }

    /// Set when the public URL is plain http (no `--public-url`): one line saying real phones
    /// refuse its links, and what to pass.
    public var plainHTTPNotice: String? { PublicOrigin.plainHTTPNotice(for: origin.url) }

    private init(application: Application, configuration: ServerConfiguration, port: Int, parts: Parts) {
        self.application = application
        self.configuration = configuration
        self.port = port
        clock = parts.clock
        connections = parts.connections
        databases = parts.connections.access
        origin = parts.origin
        sessions = parts.sessions
        runs = parts.runs
        operations = parts.operations
        testerLaunch = parts.testerLaunch
        idleMemory = parts.idleMemory
        detachedWork = parts.detachedWork
        webhookTargets = parts.webhookTargets
        sealer = parts.sealer
        outboundClient = parts.outboundClient
        push = parts.push
        audit = parts.audit
        siem = parts.siem
        throttle = parts.throttle
        signalsPollClient = parts.signalsPollClient
        revocations = parts.revocations
        keyUses = parts.keyUses
        alerts = parts.alerts
        self.background = NIOLockedValueBox(nil)
    }

    /// What ``start(_:clock:logger:testerSimulator:)`` built that the running server keeps: its
    /// background passes and its `public` methods use these.
    private struct Parts {
        var clock: ServerClock
        var connections: DatabaseConnections
        var origin: PublicOrigin
        var sessions: SessionAuthority
        var runs: LogoutRunService.OnDatabase
        var operations: OperationService.OnDatabase
        var testerLaunch: TesterLaunch
        var idleMemory: IdleMemoryRelease
        var detachedWork: DetachedWork
        var webhookTargets: WebhookTargetPolicy
        var sealer: SecretSealer?
        var outboundClient: HTTPClient
        var push: PushSender?
        var audit: AuditService
        var siem: SIEMStream?
        var throttle: Throttle
        var signalsPollClient: SharedSignalsPollClient?
        var revocations: CredentialRevocations
        var keyUses: KeyUses
        var alerts: DeviceAlerts
    }

    /// Opens the database (running migrations), binds the port and starts background work.
    ///
    /// - Parameter testerSimulator: a simulated phone the conformance tester (`/tester`) may drive;
    ///   the command line passes one in for `handover demo` and `handover tester run --simulate`.
    public static func start(_ configuration: ServerConfiguration, clock: ServerClock = SystemServerClock(),
                             logger: Logger = Logger(label: "handover"),
                             testerSimulator: (any TesterSimulator)? = nil) async throws -> HandoverServer {
        let application = try await Application.make(Environment(name: "production", arguments: ["handover"]))
        application.logger = logger
        var outboundClient: HTTPClient?
        var pushSender: PushSender?
        var openedDatabase: DatabaseConnections?
        do {
            let connections = try openDatabase(application, configuration)
            openedDatabase = connections
            let usesPostgres = connections.usesPostgres
            try await connections.prepare()
            do {
                try await connections.migrate()
            } catch {
                throw StartupFailure.database(error, configuration: configuration)
            }
            let sealer = try EncryptionKeyFile.sealer(configured: configuration.sessions.encryptionKeyBase64,
                                                      dataDirectory: configuration.dataDirectory)
            // What routes and services reach the database through (SQLite's readers beside its writer).
            let databases = connections.access
            let nonceKey = try await ServerSecrets.nonceKey(on: databases.primary, sealer: sealer)
            try await ServerSecrets.sealStoredWebhookSecrets(on: databases.primary, sealer: sealer)
            let hub = RunEventHub()
            let origin = PublicOrigin(configuration.resolvedPublicURL)
            let nonces = CallbackNonce(key: nonceKey)
            let notifier = RunChangeNotifier(hub: hub, usesPostgres: usesPostgres, logger: logger)
            let metrics = ServerMetrics()
            let webhookTargets = WebhookTargetPolicy(allowsPrivate: configuration.allowsPrivateWebhookTargets || configuration.allowsLoopbackWebhooks)
            // Webhook deliveries never follow redirects: a redirect could lead past the target check.
            application.http.client.configuration.redirectConfiguration = .disallow
            // The outboxes retry with their own back-off and log every attempt: a refused
            // connection fails its attempt at once instead of being retried until the timeout.
            application.http.client.configuration.connectionPool.retryConnectionEstablishment = false
            var outboundSettings = HTTPClient.Configuration(redirectConfiguration: .disallow)
            outboundSettings.timeout = .init(connect: .seconds(5), read: .seconds(10))
            outboundSettings.connectionPool.retryConnectionEstablishment = false  // as above
            let outbound = HTTPClient(eventLoopGroupProvider: .shared(application.eventLoopGroup), configuration: outboundSettings)
            outboundClient = outbound
            let sessions = SessionAuthority(settings: configuration.sessions, sealer: sealer, clock: clock,
                                            issuer: SessionAuthority.issuer(publicURL: configuration.publicURL),
                                            usesPostgres: usesPostgres, logger: logger)
            try await sessions.start(on: databases.primary)
            let audit = AuditService(database: databases.primary, reads: databases.reads, sealer: sealer,
                                     origin: AuditCheckpointKey.origin(publicURL: configuration.publicURL ?? URL(string: "https://handover.local")!),
                                     clock: clock, metrics: metrics, logger: logger)
            try await audit.recordStart(settings: configuration.auditSummary)
            var mailer: (any MailTransport)?
            switch (configuration.smtp, configuration.mailDropDirectory) {
            case (_?, _?):
                throw ConfigurationError(setting: "HANDOVER_MAIL_DROP_DIR", problem: "is set together with HANDOVER_SMTP_HOST",
                                         accepted: "one of them: an SMTP relay, or a folder for development")
            case (let smtp?, nil):
                try smtp.checkTrustedCertificates()
                mailer = SMTPClient(configuration: smtp, group: application.eventLoopGroup)
            case (nil, let folder?):
                mailer = try MailDropFolder(folder: folder, now: { clock.now() })
            case (nil, nil):
                break
            }
            let alerts = DeviceAlerts(database: databases.primary, settings: configuration.alerts, publicURL: { origin.url }, clock: clock,
                                      send: try Self.alertMail(configuration, mailer: mailer))
            var apple: AppleSignInService?
            if let settings = configuration.signInWithApple {
                apple = try AppleSignInService(configuration: settings, httpClient: outbound, clock: clock,
                                               settings: configuration.sessions, sealer: sealer, logger: logger)
            }
            if let push = configuration.push {
                pushSender = try PushSender(configuration: push, now: { clock.now() })
            }
            let push = pushSender
            let mdmPolicy = configuration.mdm.map { MDMPolicy(connector: $0.connector.name, action: $0.action, dryRun: $0.dryRun) }
            // Which device each run is on, remembered by every request: a callback's authorization reads nothing.
            let runDevices = RunDevices()
            // The callbacks waiting in the group commit, whose items' deadlines must not fire.
            let uncommittedCallbacks = UncommittedCallbacks()
            // Admission control: the callbacks owed by the runs this instance started, against a window.
            let admission = configuration.queueTarget.map { AdmissionGate(settings: .init(target: $0), clock: clock) }
            let runs: LogoutRunService.OnDatabase = { database in
                // Every run that ends gets a receipt signed with the JWKS's key, in the audit log.
                let runs = LogoutRunService(database: database, clock: clock, publicURL: origin.url, nonces: nonces, changes: notifier,
                                            metrics: metrics, mdm: mdmPolicy, handOver: nil, receipts: RunReceipts(ring: sessions.ring),
                                            runDevices: runDevices, uncommittedCallbacks: uncommittedCallbacks, admission: admission)
                // A run that starts ends the device's sessions, pushes and backend-only apps in its own transaction.
                return runs.handingOver(with: HandOverSignOut(sessions: sessions, runs: runs))
            }
            let operationWrites = WriteGate(serializes: !usesPostgres)
            let developerMode = configuration.developerMode, linkScheme = configuration.outOfBandLinkScheme
            let operations: OperationService.OnDatabase = { database in
                OperationService(database: database, clock: clock, publicURL: origin.url, developerMode: developerMode, metrics: metrics,
                                 notifier: notifier, writes: operationWrites, push: push, linkScheme: linkScheme)
            }
            let origins = TesterOrigins(origin: origin, configuredHostile: configuration.testerHostileURL)
            let actionPolicy: CallbackPolicy = developerMode ? CallbackPolicy(allowsLoopbackHTTP: true) : .default
            let testerLaunch = TesterLaunch(
                tester: { database in
                    ConformanceTester(database: database, clock: clock, nonces: nonces, notifier: notifier, callbackOrigin: origins.callback,
                                      hostileOrigin: origins.hostile)
                },
                simulator: testerSimulator, origins: origins, actionPolicy: actionPolicy, outboundClient: outbound,
                developerMode: developerMode, detachedWork: DetachedWork())
            let targets = OutboundTargets(policy: webhookTargets, allowsHTTPEverywhere: configuration.allowsLoopbackWebhooks)
            let associationFiles = AssociationFileCache()
            let claimsEmailSignIn = mailer != nil
            let appRegistrar: @Sendable () -> AppRegistrar = {
                AppRegistrar(clock: clock, actionPolicy: actionPolicy, targets: targets,
                             files: AssociationFiles(publicURL: origin.url, claimsEmailSignIn: claimsEmailSignIn),
                             filesChanged: { associationFiles.invalidate() })
            }
            let throttle = Throttle(limits: RateLimits(), clock: clock, databases: databases, trustsForwardedFor: configuration.trustsForwardedFor)
            let revocations = CredentialRevocations(usesPostgres: usesPostgres, logger: logger)
            let keys = KeyRevocation(revocations: revocations), keyUses = KeyUses()
            let liveKeys = connections.liveKeys(readers: usesPostgres ? 4 : 2)
            let idleMemory = IdleMemoryRelease()
            let api = APIServices(clock: clock, databases: databases, origin: origin, throttle: throttle, notifier: notifier, runs: runs,
                                 commits: RunCommits(runs: runs, databases: databases, clock: clock), operations: operations, appRegistrar: appRegistrar,
                                 webhookRegistrar: WebhookRegistrar(clock: clock, targets: targets, sealer: sealer),
                                 associationFiles: associationFiles, sessions: sessions,
                                 badges: configuration.badgeLookupURL.map { BadgeLookup(url: $0, http: outbound) }, keys: keys, keyUses: keyUses, liveKeys: liveKeys)
            let adminSignIn = configuration.adminSignIn.map { settings in
                AdminSignIn(provider: OrganisationProvider(settings: settings, http: outbound, now: { clock.now() }), now: { clock.now() })
            }
            let dashboardAuth = DashboardAuth(clock: clock, origin: origin, databases: databases, limits: configuration.dashboardSessions, provider: adminSignIn,
                                              revocations: revocations, auditAlarms: { [audit] in audit.openAlarms })
            application.middleware = Middlewares()
            // First: a shed run start costs about what /healthz costs (AdmissionMiddleware).
            if let admission {
                application.middleware.use(AdmissionMiddleware(admission: admission))
            }
            application.middleware.use(RequestActivityMiddleware(activity: idleMemory))
            application.middleware.use(APIErrorMiddleware(rateLimitedDelay: configuration.rateLimitedDelay))
            application.middleware.use(QueryParameterGuard())
            application.middleware.use(DeclaredBoundsGuard())
            application.get("healthz") { _ in ["status": "ok", "version": HandoverVersion.current] }
            application.get("metrics") { _ -> Response in
                let response = Response(status: .ok, body: .init(string: metrics.render()))
                response.headers.replaceOrAdd(name: .contentType, value: "text/plain; version=0.0.4")
                return response
            }
            application.get("openapi.yaml") { _ -> Response in
                let response = Response(status: .ok, body: .init(string: OpenAPIDocument.yaml))
                response.headers.replaceOrAdd(name: .contentType, value: "application/yaml")
                return response
            }
            try application.register(collection: HomePageRoutes(sessions: sessions, origin: origin, dashboardAuth: dashboardAuth))
            try application.register(collection: AssociationFileRoutes(origin: origin, claimsEmailSignIn: claimsEmailSignIn,
                                                                        cache: associationFiles, clock: clock, databases: databases))
            try application.register(collection: CallbackPageRoutes(commits: api.commits))
            try api.register(on: application)
            let apiGroup = application.grouped("api", "v1").grouped(APIKeyAuthenticator(throttle: throttle, keyUses: keyUses, liveKeys: liveKeys))
            try apiGroup.register(collection: LogoutRunEventRoutes(hub: hub, api: api, streams: revocations.streams))
            try apiGroup.register(collection: OperationRoutes(hub: hub, operations: operations, databases: databases, streams: revocations.streams, clock: clock))
            try apiGroup.register(collection: AuditRoutes(api: api, audit: audit))
            try apiGroup.register(collection: SignalsGrantRoutes(clock: clock, databases: databases))
            try application.register(collection: OperationRedeemRoutes(clock: clock, operations: operations, databases: databases))
            let dashboardRoutes = DashboardRoutes(auth: dashboardAuth, origin: origin, hub: hub, overviewUpdates: LiveOverviews(),
                                                  claimsEmailSignIn: claimsEmailSignIn, appRegistrar: appRegistrar,
                                                  custody: configuration.custody, throttle: throttle)
            try application.register(collection: dashboardRoutes)
            try application.register(collection: ProviderSignInRoutes(auth: dashboardAuth, origin: origin, throttle: throttle) { request, message, status in
                dashboardRoutes.signInPage(request, message: message, status: status)
            })
            try application.register(collection: PeopleRoutes(auth: dashboardAuth, provisioningOn: !configuration.directory.tokens.isEmpty))
            try application.register(collection: KeyRoutes(auth: dashboardAuth, keys: keys, keyUses: keyUses))
            try application.register(collection: DeviceKeyRoutes(auth: dashboardAuth, keys: keys, keyUses: keyUses))
            try application.register(collection: AuditPageRoutes(auth: dashboardAuth, audit: audit))
            try application.register(collection: CustodyRoutes(auth: dashboardAuth))
            try application.register(collection: AlertRoutes(auth: dashboardAuth))
            try application.register(collection: UsageReportRoutes(auth: dashboardAuth, shifts: configuration.shifts))
            try application.register(collection: DeviceFormRoutes(auth: dashboardAuth, clock: clock))
            try application.register(collection: DeviceImportRoutes(auth: dashboardAuth, clock: clock))
            try application.register(collection: WebhookFormRoutes(auth: dashboardAuth, registrar: api.webhookRegistrar))
            try application.register(collection: AppFormRoutes(auth: dashboardAuth, appRegistrar: appRegistrar, associationFiles: associationFiles))
            try application.register(collection: DeviceLifeCycleRoutes(auth: dashboardAuth, clock: clock, notifier: notifier, commits: api.commits,
                                                                          keys: keys))
            try application.register(collection: DeviceListRoutes(auth: dashboardAuth, clock: clock))
            try application.register(collection: ScorecardRoutes(auth: dashboardAuth, clock: clock))
            try application.register(collection: RunTimelineRoutes(auth: dashboardAuth, runs: runs))
            try application.register(collection: TesterRoutes(auth: dashboardAuth, hub: hub, launch: testerLaunch))
            try application.register(collection: AppleAuthRoutes(appleSignIn: apple, throttle: throttle, clock: clock, sessions: sessions, databases: databases))
            try application.register(collection: EmailSignInRoutes(throttle: throttle, clock: clock, origin: origin, sessions: sessions, databases: databases, mailer: mailer))
            try application.register(collection: OAuthTokenRoutes(sessions: sessions, throttle: throttle, clock: clock, databases: databases))
            let signals = Self.signalsReceiver(configuration, sessions: sessions, runs: runs(databases.primary), origin: origin, http: outbound,
                                               dashboard: dashboardAuth.sessions, clock: clock)
            try Self.registerSharedSignals(on: application, configuration: configuration, sessions: sessions, receiver: signals, targets: targets,
                                           throttle: throttle, origin: origin, clock: clock, databases: databases)
            try Self.registerDirectory(on: application, configuration: configuration, throttle: throttle, origin: origin, clock: clock,
                                       databases: databases,
                                       handOver: PersonHandOver(sessions: sessions, runs: runs(databases.primary), dashboard: dashboardAuth.sessions))
            try application.register(collection: OpenIDRoutes(sessions: sessions))
            try application.register(collection: ClientRegistrationRoutes(throttle: throttle, keyUses: keyUses, liveKeys: liveKeys, clock: clock, databases: databases, targets: targets))
            try application.register(collection: TokenIntrospectionRoutes(throttle: throttle, clock: clock, sessions: sessions, databases: databases))
            try application.register(collection: TokenRevocationRoutes(throttle: throttle, sessions: sessions, databases: databases))
            try application.register(collection: PhoneSignInRoutes(throttle: throttle, clock: clock, origin: origin, hub: hub,
                                                                   operations: operations, push: push, sessions: sessions, databases: databases))
            let parts = Parts(clock: clock, connections: connections, origin: origin, sessions: sessions, runs: runs, operations: operations, testerLaunch: testerLaunch,
                              idleMemory: idleMemory, detachedWork: testerLaunch.detachedWork, webhookTargets: webhookTargets,
                              sealer: sealer, outboundClient: outbound, push: push, audit: audit,
                              siem: Self.siemStream(configuration, databases: databases, clock: clock,
                                                    group: application.eventLoopGroup, http: outbound), throttle: throttle,
                              signalsPollClient: signals.flatMap { $0.settings.pollURL == nil ? nil : SharedSignalsPollClient(receiver: $0, http: outbound, logger: logger) },
                              revocations: revocations, keyUses: keyUses, alerts: alerts)
            let transport = HTTPTransport(application: application, serverName: "handover", limits: configuration.connectionLimits)
            application.servers.use { _ in transport }
            do {
                try await application.server.start(address: .hostname(configuration.host, port: configuration.port))
            } catch {
                throw StartupFailure.listening(error, host: configuration.host, port: configuration.port)
            }
            var resolved = configuration
            resolved.port = transport.localAddress?.port ?? configuration.port
            if configuration.publicURL == nil { origin.set(resolved.resolvedPublicURL) }
            let port = resolved.port
            let server = HandoverServer(application: application, configuration: resolved, port: port, parts: parts)
            var services: [any Service] = []
            if let postgres = try connections.listenerConfiguration() {
                services.append(NotificationListener(configuration: postgres, channel: RunChangeNotifier.channel, logger: logger) { payload in
                    if let run = UUID(uuidString: payload) { hub.publish(run) }
                })
                services.append(NotificationListener(configuration: postgres, channel: SessionAuthority.revocationChannel, logger: logger) { payload in
                    sessions.announce([payload])
                })
                services.append(NotificationListener(configuration: postgres, channel: CredentialRevocations.channel, logger: logger) { payload in
                    revocations.heard(payload)
                })
            }
            if let interval = configuration.schedulerInterval { services += server.backgroundPasses(every: interval) }
            server.startBackground(services)
            return server
        } catch {
            // Close what was opened, the outbound clients included (an HTTP client that is never
            // shut down traps when it is released), then report the reason.
            try? await outboundClient?.shutdown()
            await pushSender?.shutdown()
            await openedDatabase?.shutdown()
            try? await application.asyncShutdown()
            throw StartupFailure.explain(error)
        }
    }

    /// Stops background work, closes connections and releases the port.
    public func shutdown() async throws {
        if let (group, task) = background.withLockedValue({ $0 }) {
            await group.triggerGracefulShutdown()
            await task.value
        }
        try? await keyUses.flush(on: databases.primary)
        _ = try? await throttle.refusals.writeAll(on: databases.primary, now: clock.now())  // the windows still open, summarised
        await detachedWork.cancelAll()
        await webhookLanes.cancelAll()
        await backChannelLanes.cancelAll()
        await signalLanes.cancelAll()
        try? await outboundClient.shutdown()
        await push?.shutdown()
        await application.server.shutdown()
        await connections.shutdown()
        try await application.asyncShutdown()
    }

    /// The deadline scheduler, which looks for due items on SQLite's readers (``DeadlineScheduler/reads``).
    func deadlineScheduler() -> DeadlineScheduler {
        DeadlineScheduler(runs: runs(databases.primary), reads: databases.reads)
    }

    /// Runs one scheduler pass now: reissue or time out items whose deadline passed.
    @discardableResult
    public func fireDeadlines() async throws -> (reissued: Int, timedOut: Int) {
        let pass = try await deadlineScheduler().fireDue()
        try await testerLaunch.tester(databases.primary).fireDue()
        return (pass.reissued, pass.timedOut)
    }

    /// Runs one idle-memory pass now (``IdleMemoryRelease``): true when it released.
    func releaseMemoryIfIdle() async throws -> Bool {
        try await idleMemory.pass(releasing: connections)
    }

    /// Marks out-of-band operations past their expiry `expired` now; returns how many. The
    /// background loop does this every pass.
    @discardableResult
    public func expireOperations() async throws -> Int {
        try await operations(databases.primary).expireDue()
    }

    /// Session upkeep now: rotates the access-token key when due, prunes revocations, forgets
    /// expired sign-in nonces. The background loop does this every minute.
    public func maintainSessions() async throws {
        try await sessions.maintain(on: databases.primary)
    }

    /// Marks devices that completed no hand-over within ``ServerConfiguration/overdueAfter`` as
    /// overdue and starts a run for each; returns how many (0 when the limit is off). The
    /// background pass calls this; tests call it after moving their clock.
    @discardableResult
    public func markOverdueDevices() async throws -> Int {
        try await overdueDevices?.markDue().count ?? 0
    }

    /// The overdue pass: each device marked gets a run, a hand-over like any other (its sessions
    /// end in the run's transaction: ``runs`` gives the runs their ``HandOverSignOut``).
    private var overdueDevices: OverdueDevices? {
        configuration.custody.checksLending ? OverdueDevices(runs: runs(databases.primary), settings: configuration.custody) : nil
    }

    /// Removes the person's name and email from custody records checked in longer ago than
    /// ``CustodySettings/retention``; returns how many. The background pass calls it hourly.
    @discardableResult
    public func forgetExpiredCustodyNames() async throws -> Int {
        try await CustodyRetention(retention: configuration.custody.retention).forgetExpiredNames(on: databases.primary, now: clock.now())
    }

    /// Sends the MDM commands that are due now; returns how many were attempted (0 without an MDM).
    @discardableResult
    public func deliverMDMCommands() async throws -> Int {
        try await mdmDispatcher?.deliverDue() ?? 0
    }

    /// The MDM outbox's sender, when an MDM is configured.
    private var mdmDispatcher: MDMCommandDispatcher? {
        guard let mdm = configuration.mdm else { return nil }
        let clock = self.clock
        let http = MDMHTTP(client: outboundClient)
        let connector: (any MDMConnector)? = switch mdm.connector {
        case .jamf(let baseURL, let clientID, let clientSecret):
            JamfProConnector(baseURL: baseURL, clientID: clientID, clientSecret: clientSecret, http: http, now: { clock.now() })
        case .intune(let tenantID, let clientID, let clientSecret, let loginBaseURL, let graphBaseURL):
            IntuneConnector(tenantID: tenantID, clientID: clientID, clientSecret: clientSecret, loginBaseURL: loginBaseURL,
                            graphBaseURL: graphBaseURL, http: http, now: { clock.now() })
        case .webhook:
            nil
        }
        return MDMCommandDispatcher(database: databases.primary, configuration: mdm, connector: connector, clock: clock, logger: application.logger)
    }

    /// Sends webhook deliveries that are due now; returns how many were attempted.
    @discardableResult
    public func deliverWebhooks() async throws -> Int {
        try await dispatcher.deliverDue()
    }

    /// Sends Back-Channel Logout tokens that are due now; returns how many were attempted (0 when
    /// sessions are off).
    @discardableResult
    public func deliverBackChannelLogouts() async throws -> Int {
        try await backChannelDispatcher.deliverDue()
    }

    private var dispatcher: WebhookDispatcher {
        WebhookDispatcher(database: databases.primary, exchange: OutboundExchange(client: outboundClient), clock: clock, logger: application.logger,
                          lanes: webhookLanes, targets: webhookTargets, sealer: sealer)
    }

    private var backChannelDispatcher: BackChannelLogoutDispatcher {
        let runs = self.runs
        return BackChannelLogoutDispatcher(database: databases.primary, exchange: OutboundExchange(client: outboundClient), sessions: sessions,
                                        clock: clock, logger: application.logger, lanes: backChannelLanes,
                                        targets: webhookTargets,
                                        maxAttempts: max(1, configuration.backChannelLogoutAttempts),
                                        runSettled: { [database = databases.primary] run in
                                            try await BackendOnlyItems.settle(run: run, runs: runs(database))
                                        })
    }

    // MARK: Background work

    /// The repeating background passes, each a service: deadlines (and the tester's), webhook and
    /// back-channel logout delivery, the expiry of out-of-band operations, session upkeep once a
    /// minute, and the custody records' retention once an hour.
    private func backgroundPasses(every interval: Duration) -> [any Service] {
        let scheduler = deadlineScheduler()
        let tester = testerLaunch.tester(databases.primary)
        let dispatcher = self.dispatcher
        let backChannel = self.backChannelDispatcher
        let logger = application.logger
        let sessions = self.sessions
        let database = databases.primary
        let operations = self.operations(databases.primary)
        let idleMemory = self.idleMemory
        let connections = self.connections
        let walCheckpoint = connections.checkpoint()
        let retention = CustodyRetention(retention: configuration.custody.retention)
        let clock = self.clock
        let audit = self.audit, refusals = throttle.refusals
        return [
            // A checkpoint every 30 s (by default) while the log grows; the whole log checked
            // against its last checkpoint every 5 minutes.
            RepeatingPass(name: "audit checkpoints", interval: .seconds(configuration.audit.checkpointInterval), logger: logger) {
                try await audit.checkpoint()
            },
            RepeatingPass(name: "audit self-check", interval: .seconds(configuration.audit.selfCheckInterval), logger: logger) {
                try await audit.selfCheck()
            },
            // Deadlines are looked for at least every 100 ms (one indexed read that finds nothing,
            // most of the time), so that each fires well within a second of its due time.
            RepeatingPass(name: "deadlines", interval: min(interval, .milliseconds(100)), logger: logger) {
                try await scheduler.fireDue()
                try await tester.fireDue()
            },
            // The outboxes start what is due in their destinations' lanes and do not wait for it.
            RepeatingPass(name: "webhooks", interval: interval, logger: logger) { _ = try await dispatcher.startDue() },
            RepeatingPass(name: "back-channel logout", interval: interval, logger: logger) { _ = try await backChannel.startDue() },
            RepeatingPass(name: "operation expiry", interval: interval, logger: logger) { try await operations.expireDue() },
            RepeatingPass(name: "session upkeep", interval: .seconds(60), logger: logger) { try await sessions.maintain(on: database) },
            RepeatingPass(name: "device alerts", interval: max(interval, .seconds(30)), logger: logger) { [alerts] in try await alerts.pass() },
            // Open streams whose key or session may have expired are checked again (revocations
            // end theirs at once); keys' last uses are written in one statement.
            RepeatingPass(name: "open streams", interval: .seconds(1), logger: logger) { [streams = revocations.streams] in
                await streams.sweep(now: clock.now())
            },
            RepeatingPass(name: "key uses", interval: .seconds(30), logger: logger) { [keyUses] in try await keyUses.flush(on: database) },
            RepeatingPass(name: "refusal summaries", interval: .seconds(60), logger: logger) { try await refusals.writeClosed(on: database, now: clock.now()) },
            RepeatingPass(name: "custody retention", interval: .seconds(3600), logger: logger) {
                try await retention.forgetExpiredNames(on: database, now: clock.now())
            },
            // A second without a request after a burst: the caches' memory goes back.
            RepeatingPass(name: "idle memory", interval: .seconds(1), logger: logger) { try await idleMemory.pass(releasing: connections) },
        ] + sharedSignalsPasses(every: interval) + (walCheckpoint.map { checkpoint in
            // SQLite's log back into the file, beside the writer rather than on its path.
            [RepeatingPass(name: "WAL checkpoint", logger: logger, pause: { checkpoint.pause }) { try await checkpoint.pass() }]
        } ?? []) + (mdmDispatcher.map { mdm in
            [RepeatingPass(name: "MDM commands", interval: interval, logger: logger) { try await mdm.deliverDue() }]
        } ?? []) + (siem.map { siem in
            [RepeatingPass(name: "SIEM", interval: .seconds(1), logger: logger) { try await siem.pass() }]
        } ?? []) + (overdueDevices.map { overdue in
            [RepeatingPass(name: "overdue devices", interval: interval, logger: logger) { try await overdue.markDue() }]
        } ?? [])
    }

    /// Runs `services` in a service group until ``shutdown()`` asks it to stop gracefully. The
    /// group traps no signal: the command line owns SIGINT and SIGTERM and calls ``shutdown()``.
    private func startBackground(_ services: [any Service]) {
        guard !services.isEmpty else { return }
        var logger = application.logger
        logger.logLevel = max(logger.logLevel, .warning)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
        let task = Task {
            do { try await group.run() } catch { logger.warning("background services stopped", metadata: ["error": "\(error)"]) }
        }
        background.withLockedValue { $0 = (group, task) }
    }
}
