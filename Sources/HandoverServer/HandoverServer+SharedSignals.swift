import AsyncHTTPClient
import Foundation
import HandoverConfiguration
import HandoverCore
import NIOCore
import OutboundHTTP
import ServiceLifecycle
import SessionTokens
import Vapor

extension HandoverServer {
    /// The Shared Signals routes: the transmitter's (configuration, streams, poll) and the
    /// receiver's (push, Global Token Revocation).
    static func registerSharedSignals(on application: Application, configuration: ServerConfiguration, sessions: SessionAuthority,
                                      receiver: SharedSignalsReceiver?, targets: OutboundTargets, throttle: Throttle, origin: PublicOrigin,
                                      clock: ServerClock, databases: ServerDatabases) throws {
        try application.register(collection: TransmitterRoutes(sessions: sessions, targets: targets, clock: clock,
                                                               retention: configuration.sharedSignals.eventRetention, throttle: throttle,
                                                               databases: databases))
        try application.register(collection: ReceiverRoutes(receiver: receiver, throttle: throttle, origin: origin))
    }

    /// The receiver of the identity provider's SETs, when one is configured.
    static func signalsReceiver(_ configuration: ServerConfiguration, sessions: SessionAuthority, runs: LogoutRunService, origin: PublicOrigin,
                                http: HTTPClient, dashboard: DashboardSessions, clock: ServerClock) -> SharedSignalsReceiver? {
        configuration.sharedSignals.receiver.map { settings in
            var origin = origin.url.absoluteString
            while origin.hasSuffix("/") { origin.removeLast() }
            return SharedSignalsReceiver(settings: settings, audiences: [origin, sessions.ring.issuer], http: http, database: runs.database,
                                         sessions: sessions, runs: runs, dashboard: dashboard, clock: clock)
        }
    }

    private var signalsPush: SharedSignalsPush {
        SharedSignalsPush(transmitter: SharedSignalsTransmitter(issuer: sessions.ring.issuer, database: databases.primary, sealer: sessions.sealer,
                                                                targets: OutboundTargets(policy: webhookTargets, allowsHTTPEverywhere: configuration.allowsLoopbackWebhooks),
                                                                clock: clock, retention: configuration.sharedSignals.eventRetention),
                          ring: sessions.ring, exchange: OutboundExchange(client: outboundClient), lanes: signalLanes, logger: application.logger)
    }

    /// Pushes the security events that are due (RFC 8935; the background pass does it every
    /// interval); returns how many were attempted.
    @discardableResult
    public func deliverSecurityEvents() async throws -> Int {
        try await signalsPush.deliverDue()
    }

    /// Polls the identity provider for SETs once (the background pass does it every 2 s when a
    /// poll URL is configured); returns how many came.
    @discardableResult
    public func pollIdentityProvider() async throws -> Int {
        try await signalsPollClient?.pass() ?? 0
    }

    /// Drops the security events older than the retention that no receiver took (the background
    /// pass does it hourly); returns how many went.
    @discardableResult
    public func expireSecurityEvents() async throws -> Int {
        try await SharedSignalsOutbox.purge(on: try databases.sql(), now: clock.now(), retention: configuration.sharedSignals.eventRetention)
    }

    /// Shared Signals' background passes: push delivery, the outbox's retention, and polling the
    /// identity provider when configured.
    func sharedSignalsPasses(every interval: Duration) -> [any Service] {
        let push = signalsPush, logger = application.logger, clock = self.clock, retention = configuration.sharedSignals.eventRetention
        let databases = self.databases
        var passes: [any Service] = [
            RepeatingPass(name: "security events", interval: interval, logger: logger) { _ = try await push.startDue() },
            RepeatingPass(name: "security event retention", interval: .seconds(3600), logger: logger) {
                try await SharedSignalsOutbox.purge(on: try databases.sql(), now: clock.now(), retention: retention)
            },
        ]
        if let poller = signalsPollClient {
            passes.append(RepeatingPass(name: "security event poll", interval: .seconds(2), logger: logger) { try await poller.pass() })
        }
        return passes
    }
}
