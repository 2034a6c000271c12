import Foundation
import HandoverConfiguration
import HandoverServer

/// One setting of `handover serve`, as a configuration file, the environment and the flags name
/// it: the file's key is the environment variable without `HANDOVER_`, in lower case with dashes
/// (`HANDOVER_PUBLIC_URL` is `public-url`, as the flag `--public-url` is).
///
/// ``all`` is the one table of settings: `config check` reads a file's keys from it, and
/// `config example` and `config reference` (docs/configuration.md) are printed from it, with the
/// defaults read from a default ``ServerConfiguration`` where the server keeps them, so the
/// example and the reference page say what the server does.
struct ConfigurationSetting: Sendable {
    /// The environment variable, such as `HANDOVER_PUBLIC_URL`.
    var variable: String
    /// What it sets, in a line.
    var summary: String
    /// A value to show in the example file when there is no default; one the server accepts, as
    /// `config check` puts it in place of a missing setting to look past it (``ConfigurationCheck``).
    var example: String
    /// Whether `config check` hides its value.
    var isSecret = false
    /// When the setting must be given, such as "mdm is set"; nil when it never must.
    var requiredWhen: String?
    /// The value the server takes when the setting is not given, read from a default
    /// ``ServerConfiguration`` where the server keeps it; nil when unset means off or none.
    var defaultValue: @Sendable (ServerConfiguration) -> String? = { _ in nil }

    /// The file's key: `public-url`.
    var key: String { String(variable.dropFirst("HANDOVER_".count)).lowercased().replacingOccurrences(of: "_", with: "-") }

    /// The default, as a file would write it.
    var defaultText: String? { defaultValue(ServerConfiguration()) }

    /// The setting of an environment variable, such as `HANDOVER_PORT`.
    static func named(_ variable: String) -> ConfigurationSetting? { all.first { $0.variable == variable } }

    /// The group the example file puts it in.
    var group: String {
        let key = key
        for (prefix, group) in Self.groups where key.hasPrefix(prefix) { return group }
        return "The server"
    }

    /// Seconds as the file writes them: in `unit` (`h`, `y`) when whole, else in seconds.
    static func duration(_ seconds: TimeInterval, _ unit: String, _ size: TimeInterval) -> String {
        let count = seconds / size
        return count == count.rounded() ? "\(Int(count))\(unit)" : "\(Int(seconds))s"
    }

    static let groups: [(String, String)] = [
        ("smtp-", "Email sign-in links (SMTP)"), ("mail-", "Email sign-in links (SMTP)"),
        ("apple-", "Sign in with Apple"), ("apns-", "Out-of-band pushes (APNs)"), ("oob-", "Out-of-band pushes (APNs)"),
        ("admin-", "People: dashboard sign-in through your identity provider"), ("allow-key", "People: dashboard sign-in through your identity provider"),
        ("dashboard-", "People: dashboard sign-in through your identity provider"),
        ("ssf-", "Shared Signals: security events to and from your identity provider"),
        ("scim-", "People from the directory: SCIM 2.0 provisioning"),
        ("mdm", "MDM remediation"), ("overdue", "Custody and lending periods"), ("lending", "Custody and lending periods"),
        ("custody", "Custody and lending periods"), ("badge", "Custody and lending periods"),
        ("alert-", "Alerts and the usage report"), ("not-seen", "Alerts and the usage report"), ("shift-", "Alerts and the usage report"),
        ("report-", "Alerts and the usage report"),
        ("session", "Sessions"), ("strict", "Sessions"), ("token-", "Sessions"),
        ("audit-", "Audit log and SIEM"), ("siem-", "Audit log and SIEM"),
        ("header-", "Connections"), ("body-", "Connections"), ("idle-", "Connections"), ("max-", "Connections"), ("queue-", "Connections"), ("trust-", "Connections"),
    ]

    /// When each of Sign in with Apple's four settings is required.
    private static let appleTogether = "any other apple- setting but apple-base-url is set (the four together)"

    /// Every setting a file may hold, in the example's order.
    static let all: [ConfigurationSetting] = [
        .init(variable: "HANDOVER_PUBLIC_URL", summary: "the https origin devices reach this server at (behind your TLS proxy); unset, http://host:port, for loopback development only", example: "https://handover.example.com"),
        .init(variable: "HANDOVER_HOST", summary: "the address to listen on", example: "127.0.0.1",
              defaultValue: { $0.host }),
        .init(variable: "HANDOVER_PORT", summary: "the port to listen on", example: "8080",
              defaultValue: { String($0.port) }),
        .init(variable: "HANDOVER_DATA_DIR", summary: "where SQLite and the server's keys live", example: "/var/lib/handover",
              defaultValue: { $0.dataDirectory.relativePath }),
        .init(variable: "HANDOVER_DATABASE_URL", summary: "PostgreSQL instead of SQLite", example: "postgres://handover@db.example.com:5432/handover", isSecret: true),
        .init(variable: "HANDOVER_PREPARED_STATEMENTS", summary: "run statements as PostgreSQL prepared statements (true/false; false behind a pooler that does not keep them)", example: "true",
              defaultValue: { String($0.preparedStatements) }),
        .init(variable: "HANDOVER_DEVELOPER_MODE", summary: "accept loopback http logout actions, for development (true/false)", example: "false",
              defaultValue: { String($0.developerMode) }),
        .init(variable: "HANDOVER_WEBHOOK_PRIVATE_TARGETS", summary: "let webhooks and backends reach private addresses inside your network", example: "false",
              defaultValue: { String($0.allowsPrivateWebhookTargets) }),
        .init(variable: "HANDOVER_TESTER_HOSTILE_URL", summary: "a second origin that reaches this server under another host name, for the hostile-callback round of `handover tester`",
              example: "https://handover-alt.example.com"),
        .init(variable: "HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS", summary: "attempts at delivering one logout token (1 to 20)", example: "8",
              defaultValue: { String($0.backChannelLogoutAttempts) }),
        .init(variable: "HANDOVER_TOKEN_ENCRYPTION_KEY", summary: "the at-rest key every instance sharing a database must have (base64 of 32 bytes); unset, one is generated into data-dir", example: "…", isSecret: true),
        .init(variable: "HANDOVER_SESSION_TTL", summary: "access-token lifetime in seconds (30 to 86400)", example: "300",
              defaultValue: { String(Int($0.sessions.accessTokenLifetime)) }),
        .init(variable: "HANDOVER_STRICT_SESSIONS", summary: "check each access token's session in the database on every request", example: "false",
              defaultValue: { String($0.sessions.strict) }),
        .init(variable: "HANDOVER_HEADER_TIMEOUT", summary: "seconds a client has to send its request's head", example: "10",
              defaultValue: { String($0.connectionLimits.headerTimeout.nanoseconds / 1_000_000_000) }),
        .init(variable: "HANDOVER_BODY_TIMEOUT", summary: "seconds a client has to send its request's body", example: "30",
              defaultValue: { String($0.connectionLimits.bodyTimeout.nanoseconds / 1_000_000_000) }),
        .init(variable: "HANDOVER_IDLE_TIMEOUT", summary: "seconds a kept-alive connection may stay idle (1 to 3600)", example: "30",
              defaultValue: { String($0.connectionLimits.idleTimeout.nanoseconds / 1_000_000_000) }),
        .init(variable: "HANDOVER_MAX_CONNECTIONS", summary: "connections served at once (16 to 1000000); lowered at start to the open-file limit less 128", example: "4096",
              defaultValue: { String($0.connectionLimits.maximumConnections) }),
        .init(variable: "HANDOVER_QUEUE_TARGET", summary: "milliseconds of standing queue past which run starts are answered 503 + Retry-After (or off)", example: "200",
              defaultValue: { $0.queueTarget.map { String($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? "off" }),
        .init(variable: "HANDOVER_TRUST_FORWARDED_FOR", summary: "believe X-Forwarded-For from the proxy in front (true/false)", example: "true",
              defaultValue: { String($0.trustsForwardedFor) }),
        .init(variable: "HANDOVER_OVERDUE_AFTER", summary: "the fleet's lending period: overdue this long after a check-out or the last hand-over", example: "13h"),
        .init(variable: "HANDOVER_LENDING_PERIODS", summary: "sites' own lending periods", example: "ICU=9h,Ward 7=13h"),
        .init(variable: "HANDOVER_ALERT_CONTACTS", summary: "who is mailed when a device is overdue, not seen or in Lost Mode: addresses for every site, a site's own as SITE=ADDRESS ADDRESS",
              example: "it@hospital.org,ICU=icu-charge@hospital.org icu-lead@hospital.org"),
        .init(variable: "HANDOVER_NOT_SEEN_AFTER", summary: "alert when a device's key is unused this long (off when unset)", example: "3d"),
        .init(variable: "HANDOVER_SHIFT_STARTS", summary: "when shifts start, for the weekly usage report's devices in use per shift", example: "07:00,19:00",
              defaultValue: { $0.shifts.starts.map { String(format: "%02d:%02d", $0 / 60, $0 % 60) }.joined(separator: ",") }),
        .init(variable: "HANDOVER_REPORT_TIME_ZONE", summary: "the time zone of the shifts and of the report's weeks (IANA name)", example: "Europe/London",
              defaultValue: { $0.shifts.timeZone.identifier }),
        .init(variable: "HANDOVER_CUSTODY_LIMIT", summary: "devices one person may hold at once (0: no limit)", example: "1",
              defaultValue: { String($0.sessions.custodyLimit) }),
        .init(variable: "HANDOVER_CUSTODY_RETENTION", summary: "how long a custody record keeps the person's name after its check-in", example: "6y",
              defaultValue: { ConfigurationSetting.duration($0.custody.retention, "y", 365.25 * 86_400) }),
        .init(variable: "HANDOVER_AUDIT_CHECKPOINT_INTERVAL", summary: "seconds between the audit log's signed checkpoints while it grows (1 to 60)", example: "30",
              defaultValue: { String(Int($0.audit.checkpointInterval)) }),
        .init(variable: "HANDOVER_SIEM_SYSLOG", summary: "syslog receivers over TLS (RFC 5425) for the audit log, host:port, comma-separated", example: "siem.example.org:6514"),
        .init(variable: "HANDOVER_SIEM_SYSLOG_CA", summary: "a PEM file of the certificate authorities the syslog receivers' certificates chain to", example: "/etc/handover/siem-ca.pem"),
        .init(variable: "HANDOVER_SIEM_SPLUNK_URL", summary: "a Splunk HTTP Event Collector for the audit log", example: "https://splunk.example.org:8088", requiredWhen: "siem-splunk-token is set"),
        .init(variable: "HANDOVER_SIEM_SPLUNK_TOKEN", summary: "the Splunk HEC token", example: "…", isSecret: true, requiredWhen: "siem-splunk-url is set"),
        .init(variable: "HANDOVER_SSF_EVENT_RETENTION", summary: "how long a security event waits for its receiver before it is dropped", example: "168h",
              defaultValue: { ConfigurationSetting.duration($0.sharedSignals.eventRetention, "h", 3600) }),
        .init(variable: "HANDOVER_SSF_TRANSMITTER_ISSUER", summary: "your identity provider as a transmitter: the iss of its SETs", example: "https://example.okta.com", requiredWhen: "ssf-transmitter-jwks-url is set"),
        .init(variable: "HANDOVER_SSF_TRANSMITTER_JWKS_URL", summary: "the key set that signs its SETs", example: "https://example.okta.com/oauth2/v1/keys", requiredWhen: "ssf-transmitter-issuer is set"),
        .init(variable: "HANDOVER_SSF_PUSH_AUTHORIZATION", summary: "the exact Authorization value it pushes SETs with", example: "Bearer …", isSecret: true),
        .init(variable: "HANDOVER_SSF_TRANSMITTER_POLL_URL", summary: "its RFC 8936 poll endpoint, to poll instead", example: "https://idp.example.com/ssf/poll/9d1c1f7e"),
        .init(variable: "HANDOVER_SSF_TRANSMITTER_POLL_AUTHORIZATION", summary: "the Authorization value to poll with", example: "Bearer …", isSecret: true),
        .init(variable: "HANDOVER_BADGE_LOOKUP_URL", summary: "your badge directory: GET <url>?id=<badge> answers {\"user\": \"<login>\"}", example: "https://badges.example.com/lookup"),
        .init(variable: "HANDOVER_MDM", summary: "the fleet's MDM: jamf, intune or webhook", example: "jamf"),
        .init(variable: "HANDOVER_MDM_ACTION", summary: "lock, lost_mode, erase or (Jamf Pro) return_to_service", example: "lock", requiredWhen: "mdm is set"),
        .init(variable: "HANDOVER_MDM_URL", summary: "Jamf Pro's address", example: "https://yourserver.jamfcloud.com", requiredWhen: "mdm is jamf"),
        .init(variable: "HANDOVER_MDM_TENANT", summary: "Intune: the Entra tenant id", example: "contoso.onmicrosoft.com", requiredWhen: "mdm is intune"),
        .init(variable: "HANDOVER_MDM_CLIENT_ID", summary: "the MDM API client's id", example: "handover", requiredWhen: "mdm is jamf or intune"),
        .init(variable: "HANDOVER_MDM_CLIENT_SECRET", summary: "the MDM API client's secret", example: "…", isSecret: true, requiredWhen: "mdm is jamf or intune"),
        .init(variable: "HANDOVER_MDM_MESSAGE", summary: "shown on a locked screen", example: "Return to the ward 7 desk", requiredWhen: "mdm-action is lost_mode and mdm-phone is not set"),
        .init(variable: "HANDOVER_MDM_PHONE", summary: "the phone number on a locked screen", example: "+44 20 7946 0000"),
        .init(variable: "HANDOVER_MDM_FOOTNOTE", summary: "Lost Mode's footnote", example: "St Elsewhere IT"),
        .init(variable: "HANDOVER_MDM_DRY_RUN", summary: "record what would be sent; send nothing", example: "true",
              defaultValue: { _ in "false" }),
        .init(variable: "HANDOVER_MDM_RTS_WIFI_PROFILE", summary: "Return to Service: the Wi-Fi .mobileconfig the erased phone joins", example: "/etc/handover/ward-wifi.mobileconfig", requiredWhen: "mdm-action is return_to_service"),
        .init(variable: "HANDOVER_MDM_RTS_MDM_PROFILE", summary: "Return to Service: the enrollment profile, for phones outside Automated Device Enrollment", example: "/etc/handover/enroll.mobileconfig"),
        .init(variable: "HANDOVER_MDM_LOGIN_URL", summary: "Intune: Entra's login origin (national clouds)", example: "https://login.microsoftonline.com",
              defaultValue: { _ in "https://login.microsoftonline.com" }),
        .init(variable: "HANDOVER_MDM_GRAPH_URL", summary: "Intune: Microsoft Graph's origin (national clouds)", example: "https://graph.microsoft.com",
              defaultValue: { _ in "https://graph.microsoft.com" }),
        .init(variable: "HANDOVER_ADMIN_OIDC_ISSUER", summary: "your identity provider, for dashboard sign-in", example: "https://login.example.com", requiredWhen: "admin-oidc-client-id or admin-role-map is set"),
        .init(variable: "HANDOVER_ADMIN_OIDC_CLIENT_ID", summary: "the dashboard's client id at the provider", example: "handover-dashboard", requiredWhen: "admin-oidc-issuer is set"),
        .init(variable: "HANDOVER_ADMIN_OIDC_CLIENT_SECRET", summary: "the dashboard's client secret", example: "…", isSecret: true, requiredWhen: "admin-oidc-issuer is set"),
        .init(variable: "HANDOVER_ADMIN_ROLE_CLAIM", summary: "the ID token's claim that carries the person's groups", example: "groups",
              defaultValue: { _ in "groups" }),
        .init(variable: "HANDOVER_ADMIN_ROLE_MAP", summary: "groups to roles (and sites)", example: "handover-admins=admin,ward-leads=operator", requiredWhen: "admin-oidc-issuer is set"),
        .init(variable: "HANDOVER_SCIM_TOKEN", summary: "the bearer token your directory's SCIM client (Entra ID, Okta) sends to /scim/v2", example: "…", isSecret: true,
              requiredWhen: "scim-previous-token is set"),
        .init(variable: "HANDOVER_SCIM_PREVIOUS_TOKEN", summary: "the token being replaced, accepted too while the client moves to the new one", example: "…", isSecret: true),
        .init(variable: "HANDOVER_SCIM_BADGE_ATTRIBUTE", summary: "the attribute of a provisioned person that holds their badge",
              example: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber", defaultValue: { $0.directory.badgeAttribute.description }),
        .init(variable: "HANDOVER_ALLOW_KEY_SIGN_IN", summary: "with a provider: let admin keys open the dashboard too (break-glass)", example: "false",
              defaultValue: { _ in "false" }),
        .init(variable: "HANDOVER_DASHBOARD_IDLE_MINUTES", summary: "a dashboard session's idle timeout", example: "15",
              defaultValue: { String(Int($0.dashboardSessions.idle / 60)) }),
        .init(variable: "HANDOVER_DASHBOARD_SESSION_HOURS", summary: "a dashboard session's absolute lifetime", example: "12",
              defaultValue: { String(Int($0.dashboardSessions.absolute / 3600)) }),
        .init(variable: "HANDOVER_SMTP_HOST", summary: "the mail relay for email sign-in links", example: "smtp.example.com"),
        .init(variable: "HANDOVER_SMTP_PORT", summary: "its port", example: "587",
              defaultValue: { _ in "587" }),
        .init(variable: "HANDOVER_SMTP_FROM", summary: "the sender", example: "Handover <no-reply@example.com>", requiredWhen: "smtp-host is set"),
        .init(variable: "HANDOVER_SMTP_USER", summary: "the relay's user name", example: "handover"),
        .init(variable: "HANDOVER_SMTP_PASSWORD", summary: "the relay's password", example: "…", isSecret: true),
        .init(variable: "HANDOVER_SMTP_STARTTLS", summary: "STARTTLS: required or off", example: "required",
              defaultValue: { _ in "required" }),
        .init(variable: "HANDOVER_SMTP_CA_FILE", summary: "extra CA certificates for the relay (PEM)", example: "/etc/handover/relay-ca.pem"),
        .init(variable: "HANDOVER_MAIL_DROP_DIR", summary: "development: write sign-in mail as .eml files here instead", example: "/tmp/handover-mail"),
        .init(variable: "HANDOVER_APPLE_CLIENT_IDS", summary: "bundle ids / Services IDs whose Apple identity tokens are accepted", example: "ABCDE12345.com.example.launcher", requiredWhen: appleTogether),
        .init(variable: "HANDOVER_APPLE_TEAM_ID", summary: "your Apple developer team id", example: "ABCDE12345", requiredWhen: appleTogether),
        .init(variable: "HANDOVER_APPLE_KEY_ID", summary: "your Sign in with Apple key's id", example: "KEY1234567", requiredWhen: appleTogether),
        .init(variable: "HANDOVER_APPLE_PRIVATE_KEY_FILE", summary: "that key's .p8 file", example: "/etc/handover/AuthKey.p8", requiredWhen: appleTogether),
        .init(variable: "HANDOVER_APPLE_BASE_URL", summary: "Apple's origin (a test server)", example: "https://appleid.apple.com",
              defaultValue: { _ in "https://appleid.apple.com" }),
        .init(variable: "HANDOVER_APNS_KEY_ID", summary: "your APNs key's id", example: "KEY7654321", requiredWhen: "any of apns-team-id, apns-private-key-file, apns-topic is set (the four together)"),
        .init(variable: "HANDOVER_APNS_TEAM_ID", summary: "the team of that key", example: "ABCDE12345", requiredWhen: "any of apns-key-id, apns-private-key-file, apns-topic is set (the four together)"),
        .init(variable: "HANDOVER_APNS_PRIVATE_KEY_FILE", summary: "that key's .p8 file", example: "/etc/handover/APNsKey.p8", requiredWhen: "any of apns-key-id, apns-team-id, apns-topic is set (the four together)"),
        .init(variable: "HANDOVER_APNS_TOPIC", summary: "the phone app's bundle id", example: "com.example.approver", requiredWhen: "any of apns-key-id, apns-team-id, apns-private-key-file is set (the four together)"),
        .init(variable: "HANDOVER_APNS_ENVIRONMENT", summary: "production or sandbox", example: "production",
              defaultValue: { _ in "production" }),
        .init(variable: "HANDOVER_APNS_BASE_URL", summary: "APNs' origin (a test server)", example: "https://api.push.apple.com",
              defaultValue: { _ in "https://api.push.apple.com" }),
        .init(variable: "HANDOVER_APNS_CA_FILE", summary: "extra CA certificates for APNs (PEM)", example: "/etc/handover/apns-ca.pem"),
        .init(variable: "HANDOVER_OOB_LINK_SCHEME", summary: "the phone app's custom scheme, for x-callback-link operations", example: "handover",
              defaultValue: { $0.outOfBandLinkScheme }),
    ]
}
