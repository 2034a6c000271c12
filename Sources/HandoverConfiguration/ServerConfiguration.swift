import Foundation
import HandoverTransport
import Mail
import HandoverCore
import HandoverProtocol
import LinkCallbacks
import NIOCore

/// How a Handover server runs: where it listens, where it keeps data, and how it names itself.
///
/// Every field has a flag on `handover serve` and an environment variable; see ``fromEnvironment(_:)``.
public struct ServerConfiguration: Sendable {
    /// The address to listen on. `127.0.0.1` by default: put a TLS proxy in front for devices.
    public var host: String = "127.0.0.1"
    /// The port to listen on; `0` picks a free one (tests do this).
    public var port: Int = 8080
    /// Where the embedded SQLite database and generated secrets live.
    public var dataDirectory: URL = URL(fileURLWithPath: ".handover")
    /// `postgres://user:pass@host:5432/db` to use PostgreSQL; `nil` for SQLite in ``dataDirectory``.
    public var databaseURL: String?
    /// Whether statements run as PostgreSQL prepared statements, each kept on its connection once
    /// the server has seen it three times (`HANDOVER_PREPARED_STATEMENTS`, `true` by default). Turn
    /// it off behind a pooler that does not keep a session's prepared statements (PgBouncer before
    /// 1.21, or in transaction pooling without `max_prepared_statements`). Nothing on SQLite.
    public var preparedStatements: Bool = true
    /// The https origin devices reach this server at, used in callback links and association files.
    /// Defaults to `http://<host>:<port>`, which suits loopback development only.
    public var publicURL: URL?
    /// How often the scheduler looks for stalled items and due webhook deliveries; `nil` turns the
    /// background loop off (tests drive ``DeadlineScheduler`` and ``WebhookDispatcher`` by hand).
    public var schedulerInterval: Duration? = .seconds(1)
    /// Whether to print a fresh admin key when the database has none (first start).
    public var createsFirstAdminKey: Bool = true
    /// Extra hosts, besides ``publicURL``'s, that webhook targets may be on with plain http (loopback tests).
    public var allowsLoopbackWebhooks: Bool = false
    /// Whether webhook targets may be loopback or private addresses (RFC 1918, shared address
    /// space, IPv6 unique local). Off by default: a webhook URL is resolved by this server, and
    /// should not reach into the network behind it. Link-local and metadata addresses are never
    /// allowed. `--webhook-private-targets`, `HANDOVER_WEBHOOK_PRIVATE_TARGETS=1`.
    public var allowsPrivateWebhookTargets: Bool = false
    /// Whether a client's address (for rate limits) is the last one in `X-Forwarded-For`, as a
    /// TLS proxy in front of the server adds it. Only with such a proxy: otherwise a client could
    /// name any address. `HANDOVER_TRUST_FORWARDED_FOR=1`.
    public var trustsForwardedFor: Bool = false
    /// How long a rate-limited answer (429) waits before it is sent, so a client over its limit
    /// gets one answer per connection per second instead of as many as it can send. One second by
    /// default; tests that count 429s set zero.
    public var rateLimitedDelay: TimeAmount = .seconds(1)
    /// Connection time limits and the connection cap (see ``ConnectionLimits``).
    public var connectionLimits = ConnectionLimits()
    /// Admission control: a run start (or check-out) is taken while the callbacks owed by the runs
    /// already started are below a window, and answered `503` with `Retry-After` past it; when the
    /// write requests (callbacks, run starts, check-outs) of a quarter-second all waited longer
    /// than this, the window is cut, so that past its capacity the server keeps recording
    /// callbacks at its capacity (`AdmissionControl`). 200 ms by default; nil turns it
    /// off (`HANDOVER_QUEUE_TARGET`, milliseconds, or `off`). Test servers turn it off unless a
    /// test is about it.
    public var queueTarget: Duration? = .milliseconds(200)
    /// Developer mode: the registry also accepts logout actions on loopback hosts with plain http
    /// and a port (`http://127.0.0.1:9311/logout`), mirroring iOS associated domains'
    /// `?mode=developer`. For simulators and tests on one machine; off by default.
    public var developerMode: Bool = false
    /// A second origin that reaches this server under another host name, for the conformance
    /// tester's hostile-callback round (a callback host outside the app's allowlist). On
    /// loopback the other loopback name is used when this is `nil`.
    public var testerHostileURL: URL?
    /// Sign in with Apple; `nil` leaves `/auth/apple` answering 404 `not_configured`.
    public var signInWithApple: SignInWithAppleConfiguration?
    /// The server's own sessions (access-token lifetime, strict revocation, key rotation).
    public var sessions = SessionSettings()
    /// Mail for email-link sign-in; `nil` leaves `/auth/email/start` answering 404 `not_configured`.
    public var smtp: SMTPConfiguration?
    /// Instead of SMTP, for development and `handover demo`: sign-in mail is written to this
    /// folder as `.eml` files (`HANDOVER_MAIL_DROP_DIR`, `handover serve --mail-drop`). Not both.
    public var mailDropDirectory: URL?
    /// Attempts at delivering one Back-Channel Logout token before it is shown as failed
    /// (back-off doubles from 2 s; 8 attempts span about four minutes;
    /// `HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS`).
    public var backChannelLogoutAttempts: Int = 8
    /// The fleet's lending period: a device held this long after its check-out, or held by nobody
    /// and with no hand-over completed for this long, is marked overdue and the server starts a
    /// logout run for it (`HANDOVER_OVERDUE_AFTER`, `handover serve --overdue-after 13h`); nil
    /// (the default) checks nothing but the sites' own periods. Kept in ``custody``.
    public var overdueAfter: TimeInterval? {
        get { custody.fleetLendingPeriod }
        set { custody.fleetLendingPeriod = newValue }
    }
    /// Lending periods (the fleet's and the sites') and the custody records' retention.
    public var custody = CustodySettings()
    /// Who hears of a device that needs a person, and when a device counts as not seen
    /// (`HANDOVER_ALERT_CONTACTS`, `HANDOVER_NOT_SEEN_AFTER`).
    public var alerts = AlertSettings()
    /// SCIM provisioning from the directory (issue 67).
    public var directory = DirectorySettings()
    /// The shifts the weekly usage report counts in (`HANDOVER_SHIFT_STARTS`,
    /// `HANDOVER_REPORT_TIME_ZONE`): 07:00 and 19:00 UTC by default.
    public var shifts = ShiftCalendar()
    /// The audit log's checkpoints and the SIEMs it streams to.
    public var audit = AuditSettings()
    /// Shared Signals: the transmitter's event retention, and the identity provider as a transmitter.
    public var sharedSignals = SharedSignalsSettings()
    /// The fleet's MDM and what to ask of it when a device goes out of service or overdue
    /// (`HANDOVER_MDM_*`, see ``MDMConfiguration``); nil asks nothing.
    public var mdm: MDMConfiguration?
    /// APNs for out-of-band operations sent by push; `nil` makes `dispatcher: push` answer 422.
    public var push: PushConfiguration?
    /// The custom scheme `x-callback-link` operations use: the phone app's (`handover` by default).
    public var outOfBandLinkScheme: String = "handover"
    /// People sign in to the dashboard through the organisation's OpenID Connect provider
    /// (`HANDOVER_ADMIN_OIDC_*`, `HANDOVER_ADMIN_ROLE_*`); nil keeps admin-key sign-in.
    public var adminSignIn: AdminSignInSettings?
    /// The dashboard sessions' idle and absolute timeouts (`HANDOVER_DASHBOARD_IDLE_MINUTES`,
    /// `HANDOVER_DASHBOARD_SESSION_HOURS`).
    public var dashboardSessions = SessionLimits()
    /// The customer's badge lookup (`HANDOVER_BADGE_LOOKUP_URL`, `--badge-lookup-url`): `GET
    /// <url>?id=<badge>` answers `{"user": "<login>"}`; nil: launchers cannot check out by badge.
    public var badgeLookupURL: URL?

    public init() {}

    /// Reads `HANDOVER_HOST`, `HANDOVER_PORT`, `HANDOVER_DATA_DIR`, `HANDOVER_DATABASE_URL` and
    /// `HANDOVER_PUBLIC_URL`, and `HANDOVER_DEVELOPER_MODE` (`1` or `true` turns it on), the
    /// Sign in with Apple settings (`HANDOVER_APPLE_*`) and the session settings
    /// (`HANDOVER_SESSION_TTL`, `HANDOVER_STRICT_SESSIONS`, `HANDOVER_TOKEN_ENCRYPTION_KEY`),
    /// leaving defaults for the ones not set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let host = environment["HANDOVER_HOST"], !host.isEmpty { configuration.host = try checkHost(host, setting: "HANDOVER_HOST") }
        if let port = environment["HANDOVER_PORT"], !port.isEmpty {
            guard let value = Int(port), (0...65535).contains(value) else {
                throw ConfigurationError(setting: "HANDOVER_PORT", problem: "'\(port)' is not a port number", accepted: "0 to 65535")
            }
            configuration.port = value
        }
        if let directory = environment["HANDOVER_DATA_DIR"], !directory.isEmpty {
            configuration.dataDirectory = URL(fileURLWithPath: directory)
        }
        if let database = environment["HANDOVER_DATABASE_URL"], !database.isEmpty {
            configuration.databaseURL = database
        }
        if let value = environment["HANDOVER_PREPARED_STATEMENTS"], !value.isEmpty {
            configuration.preparedStatements = try parseSwitch(value, setting: "HANDOVER_PREPARED_STATEMENTS")
        }
        if let publicURL = environment["HANDOVER_PUBLIC_URL"], !publicURL.isEmpty {
            configuration.publicURL = try parsePublicURL(publicURL, setting: "HANDOVER_PUBLIC_URL")
        }
        if let hostile = environment["HANDOVER_TESTER_HOSTILE_URL"], !hostile.isEmpty {
            configuration.testerHostileURL = try parsePublicURL(hostile, setting: "HANDOVER_TESTER_HOSTILE_URL")
        }
        if let value = environment["HANDOVER_DEVELOPER_MODE"], !value.isEmpty {
            configuration.developerMode = try parseSwitch(value, setting: "HANDOVER_DEVELOPER_MODE")
        }
        if let value = environment["HANDOVER_WEBHOOK_PRIVATE_TARGETS"], !value.isEmpty {
            configuration.allowsPrivateWebhookTargets = try parseSwitch(value, setting: "HANDOVER_WEBHOOK_PRIVATE_TARGETS")
        }
        configuration.connectionLimits = try ConnectionLimits.fromEnvironment(environment)
        if let value = environment["HANDOVER_QUEUE_TARGET"], !value.isEmpty {
            if ["off", "0", "false", "no"].contains(value.lowercased()) {
                configuration.queueTarget = nil
            } else {
                guard let milliseconds = Int(value), (1...60_000).contains(milliseconds) else {
                    throw ConfigurationError(setting: "HANDOVER_QUEUE_TARGET", problem: "'\(value)' is not a number of milliseconds",
                                             accepted: "1 to 60000 (200 by default), or off")
                }
                configuration.queueTarget = .milliseconds(milliseconds)
            }
        }
        if let value = environment["HANDOVER_TRUST_FORWARDED_FOR"], !value.isEmpty {
            configuration.trustsForwardedFor = try parseSwitch(value, setting: "HANDOVER_TRUST_FORWARDED_FOR")
        }
        if let attempts = environment["HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS"], !attempts.isEmpty {
            guard let value = Int(attempts), (1...20).contains(value) else {
                throw ConfigurationError(setting: "HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS", problem: "'\(attempts)' is not a number of attempts",
                                         accepted: "1 to 20 (8 by default: the back-off doubles from 2 s, so 8 attempts span about four minutes)")
            }
            configuration.backChannelLogoutAttempts = value
        }
        if let overdue = environment["HANDOVER_OVERDUE_AFTER"], !overdue.isEmpty {
            configuration.overdueAfter = try parseOverdueAfter(overdue, setting: "HANDOVER_OVERDUE_AFTER")
        }
        configuration.mdm = try MDMConfiguration.fromEnvironment(environment)
        try readSessionSettings(environment, into: &configuration)
        try readCustodySettings(environment, into: &configuration)
        try readAlertSettings(environment, into: &configuration)
        try readDirectorySettings(environment, into: &configuration)
        try readReportSettings(environment, into: &configuration)
        try readAuditSettings(environment, into: &configuration)
        try readSharedSignalsSettings(environment, into: &configuration)
        return configuration
    }

    /// Reads a duration such as `13h`, `90m`, `45s` or `3600` (seconds), from a minute to 30 days.
    public static func parseOverdueAfter(_ text: String, setting: String) throws -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("h", 3600), ("m", 60), ("s", 1)]
        var value: Double?
        if let (suffix, factor) = units.first(where: { trimmed.hasSuffix($0.0) }) {
            value = Double(trimmed.dropLast(suffix.count)).map { $0 * factor }
        } else {
            value = Double(trimmed)
        }
        guard let seconds = value, seconds.isFinite, (60...(30 * 86_400)).contains(seconds) else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' is not a duration from a minute to 30 days",
                                     accepted: "hours, minutes or seconds such as 13h, 90m, 3600s (the longest shift plus an hour, say)")
        }
        return seconds.rounded()
    }

    /// Checks a public URL: an absolute http(s) origin with no query or fragment.
    public static func parsePublicURL(_ text: String, setting: String) throws -> URL {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host != nil, url.query == nil, url.fragment == nil else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' is not an http(s) origin",
                                     accepted: "https://handover.example.com (http only for loopback development)")
        }
        // Callback URLs under it go into ULC links as written (``UniversalLinkCallback/Action/linkText(success:error:)``):
        // the link reader must keep them unchanged (an ASCII host, nothing it would re-encode).
        let sample = CallbackURL(run: UUID(), item: UUID(), outcome: .success, nonce: "n").text(base: url)
        guard let ulc = try? UniversalLinkCallback(actionText: "https://app.example.com/logout", successText: sample, errorText: sample),
              ulc.success.absoluteString == sample else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' does not stay as written in a link (a host with non-ASCII letters?)",
                                     accepted: "an origin in its ASCII form, such as https://handover.example.com or https://xn--bcher-kva.example")
        }
        return url
    }

    /// Checks a listening address: an IPv4 address or a host name (letters, digits, '.', '-').
    public static func checkHost(_ text: String, setting: String) throws -> String {
        let allowed = text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        guard !text.isEmpty, text.count <= 253, allowed, !text.hasPrefix("-"), !text.hasPrefix(".") else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' is not an address to listen on",
                                     accepted: "an IPv4 address such as 127.0.0.1 or 0.0.0.0, or a host name such as localhost")
        }
        return text
    }

    /// The public origin, defaulting to the listening address (0.0.0.0 is shown as 127.0.0.1).
    public var resolvedPublicURL: URL {
        if let publicURL { return publicURL }
        var components = URLComponents()
        components.scheme = "http"
        components.host = host == "0.0.0.0" ? "127.0.0.1" : host
        components.port = port
        return components.url ?? URL(fileURLWithPath: "/")
    }
}

