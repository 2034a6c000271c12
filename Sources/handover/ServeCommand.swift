import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer
import Logging

/// `handover serve`: run the server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Handover server: fleet logout runs, callback pages, association files, webhooks, out-of-band operations.",
        discussion: """
            With no flags it keeps an SQLite database in ./.handover, runs migrations, and listens on \
            127.0.0.1:8080. On the first start it prints an admin key (shown once).

            Every flag can also come from the environment: HANDOVER_HOST, HANDOVER_PORT, \
            HANDOVER_DATA_DIR, HANDOVER_DATABASE_URL, HANDOVER_PUBLIC_URL, HANDOVER_DEVELOPER_MODE, \
            HANDOVER_APPLE_CLIENT_IDS, HANDOVER_APPLE_TEAM_ID, HANDOVER_APPLE_KEY_ID, \
            HANDOVER_APPLE_PRIVATE_KEY_FILE, HANDOVER_APPLE_BASE_URL, HANDOVER_SESSION_TTL, \
            HANDOVER_STRICT_SESSIONS, HANDOVER_TOKEN_ENCRYPTION_KEY, HANDOVER_MAIL_DROP_DIR, HANDOVER_OVERDUE_AFTER. Flags win. \
            HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS (1 to 20, default 8) sets how often a logout token is \
            tried before it is shown as failed. Every setting, with its default and when it is \
            required, is in docs/configuration.md (`handover config reference`); a YAML file of \
            them is read with --config (`handover config example`, `handover config check FILE`).

            Sign in with Apple (POST /auth/apple) needs the four --apple-* settings; the server then \
            issues its own sessions: ES256 access tokens living --session-ttl seconds and single-use \
            refresh tokens. Apple refresh tokens are stored AES-GCM encrypted with \
            HANDOVER_TOKEN_ENCRYPTION_KEY, or with a key generated into the data directory on first \
            start (set the variable when several instances share a database).

            Out-of-band operations (POST /api/v1/operations) go to enrolled phones by QR code or link \
            always, and by push with the four --apns-* key settings (HANDOVER_APNS_PRIVATE_KEY_FILE, \
            HANDOVER_APNS_KEY_ID, HANDOVER_APNS_TEAM_ID, HANDOVER_APNS_TOPIC, HANDOVER_APNS_ENVIRONMENT). \
            The web page "Sign in on this computer with your phone" is at /oob/sign-in.

            Email-link sign-in (POST /auth/email/start) sends its links through the SMTP relay named \
            by HANDOVER_SMTP_HOST and HANDOVER_SMTP_FROM (and HANDOVER_SMTP_PORT, _USER, _PASSWORD, \
            _STARTTLS, _CA_FILE); on a development machine --mail-drop writes them into a folder instead.

            A device that goes out of service or overdue can be locked, put in Lost Mode or (after a \
            person confirms it on the dashboard) erased by the fleet's MDM: HANDOVER_MDM=jamf|intune|webhook, \
            HANDOVER_MDM_ACTION=lock|lost_mode|erase, HANDOVER_MDM_MESSAGE, HANDOVER_MDM_PHONE, and the \
            connector's HANDOVER_MDM_URL or HANDOVER_MDM_TENANT, HANDOVER_MDM_CLIENT_ID and \
            HANDOVER_MDM_CLIENT_SECRET; HANDOVER_MDM_DRY_RUN=1 sends nothing (docs/mdm.md).

            Devices reach the server through a TLS proxy at --public-url; callback links and the \
            apple-app-site-association file use that origin.

            Your backends verify its tokens with the JWKS and hear when sessions end (OpenID Connect): \
            with --public-url set, /.well-known/openid-configuration is the issuer's discovery \
            document; register a backend with POST /oauth/register (an admin key), give an app its \
            backchannelLogoutURI, and every ended session is posted there as a logout token \
            (docs/backends.md). --webhook-private-targets also lets those go to private addresses.

            Examples:
              handover serve
              handover serve --port 9000 --public-url https://handover.example.com
              handover serve --port 8080 --developer-mode     # for handover simulate logout --server
              handover serve --developer-mode --mail-drop ./mail   # sign-in links land in ./mail/*.eml
              handover serve --overdue-after 13h              # 12-hour shifts: a device missing a hand-over escalates
              eval "$(swift run apns-loopback)"; handover serve --developer-mode   # pushes to a loopback APNs
              handover serve --database postgres://handover:secret@127.0.0.1:5432/handover
              handover serve --apple-client-ids com.example.app --apple-team-id ABCDE12345 \
                --apple-key-id ABC123DEFG --apple-private-key-file AuthKey_ABC123DEFG.p8
              HANDOVER_ADMIN_OIDC_CLIENT_SECRET=… handover serve --public-url https://handover.example.org \
                --admin-oidc-issuer https://login.example.org/realms/hospital --admin-oidc-client-id handover \
                --admin-role-map 'handover-admins=admin,icu-leads=operator@ICU'   # people sign in (docs/people-and-roles.md)
            Stop it with Ctrl-C or SIGTERM: it finishes in-flight requests first.
            """
    )

    @Option(help: ArgumentHelp("Address to listen on. Env: HANDOVER_HOST. Default: 127.0.0.1", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("Port to listen on; 0 picks a free one. Env: HANDOVER_PORT. Default: 8080", valueName: "port"))
    var port: Int?

    @Option(name: .customLong("config"),
            help: ArgumentHelp("A YAML file of settings (`handover config example` prints one): the environment overrides it, and flags override both.",
                               valueName: "file"))
    var configFile: String?

    @OptionGroup var storage: StorageOptions

    @Option(name: .customLong("public-url"),
            help: ArgumentHelp("The https origin devices reach this server at. Env: HANDOVER_PUBLIC_URL.", valueName: "url"))
    var publicURL: String?

    @OptionGroup(title: "Sign in with Apple and sessions") var sessions: SessionOptions

    @OptionGroup(title: "Out-of-band operations (push, QR code, link)") var push: PushOptions

    @OptionGroup(title: "People: dashboard sign-in through your identity provider") var people: AdminSignInOptions

    @OptionGroup(title: "People from the directory: SCIM 2.0 provisioning from Entra ID or Okta") var directory: DirectoryOptions

    @OptionGroup(title: "Shared Signals: security events to and from your identity provider") var signals: SharedSignalsOptions

    @Option(name: .customLong("mail-drop"),
            help: ArgumentHelp("For development: write sign-in mail as .eml files into this folder instead of sending it over SMTP (HANDOVER_SMTP_*). Env: HANDOVER_MAIL_DROP_DIR.",
                               valueName: "dir"))
    var mailDrop: String?

    @Option(name: .customLong("overdue-after"),
            help: ArgumentHelp("Mark a device overdue when it completes no hand-over for this long (13h, 90m, 3600s), and start a logout run for it; it escalates like a failed run. Off by default. Env: HANDOVER_OVERDUE_AFTER.",
                               valueName: "duration"))
    var overdueAfter: String?

    @Option(name: .customLong("alert-contacts"),
            help: ArgumentHelp("Who is mailed when a device is overdue, not seen or in Lost Mode: addresses for every site, and a site's own as SITE=ADDRESS ADDRESS, entries separated by commas (it@hospital.org,ICU=icu-charge@hospital.org). Needs SMTP or --mail-drop. Webhooks subscribed to device.alert hear of every alert. Env: HANDOVER_ALERT_CONTACTS.",
                               valueName: "contacts"))
    var alertContacts: String?

    @Option(name: .customLong("not-seen-after"),
            help: ArgumentHelp("Alert when a device's key has not been used for this long (3d, 36h, 90m); never used: since it was registered. Off by default. Env: HANDOVER_NOT_SEEN_AFTER.",
                               valueName: "duration"))
    var notSeenAfter: String?

    @Flag(name: .customLong("webhook-private-targets"),
          help: "Let webhooks reach loopback and private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), for a receiver inside your network. Link-local and cloud metadata addresses stay refused. Env: HANDOVER_WEBHOOK_PRIVATE_TARGETS=1.")
    var webhookPrivateTargets = false

    @Flag(name: .customLong("developer-mode"),
          help: "Also accept logout actions on loopback with http and a port (like iOS ?mode=developer), for `handover simulate logout --server`. Env: HANDOVER_DEVELOPER_MODE=1.")
    var developerMode = false

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port: \(port) is not a port. Accepted: 0 to 65535.") }
        if let host {
            do {
                _ = try ServerConfiguration.checkHost(host, setting: "--host")
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
        }
    }

    func run() async throws {
        // Flags, then the environment, then the file, then the defaults.
        let processEnvironment = ProcessInfo.processInfo.environment
        let file = try configFile.map { try ConfigurationFile.read($0) }
        let environment = file?.merged(over: processEnvironment) ?? processEnvironment
        var configuration: ServerConfiguration
        do {
            configuration = try storage.configuration(environment: environment)
            if let host { configuration.host = host }
            if let port { configuration.port = port }
            if developerMode { configuration.developerMode = true }
            if webhookPrivateTargets { configuration.allowsPrivateWebhookTargets = true }
            if let mailDrop { configuration.mailDropDirectory = URL(fileURLWithPath: mailDrop) }
            if let overdueAfter { configuration.overdueAfter = try ServerConfiguration.parseOverdueAfter(overdueAfter, setting: "--overdue-after") }
            if let alertContacts {
                configuration.alerts.fleetContacts = []
                configuration.alerts.siteContacts = [:]
                try ServerConfiguration.parseAlertContacts(alertContacts, setting: "--alert-contacts", into: &configuration.alerts)
            }
            if let notSeenAfter { configuration.alerts.notSeenAfter = try ServerConfiguration.parseNotSeenAfter(notSeenAfter, setting: "--not-seen-after") }
            try sessions.apply(to: &configuration, environment: environment)
            if let publicURL { configuration.publicURL = try ServerConfiguration.parsePublicURL(publicURL, setting: "--public-url") }
            try push.apply(to: &configuration, environment: environment)
            try people.apply(to: &configuration, environment: environment)
            try directory.apply(to: &configuration)
            try signals.apply(to: &configuration)
        } catch let error as ConfigurationError {
            // A value from the file is named by the file, its line and its key, as `config check` names it.
            guard let file, !error.setting.hasPrefix("--") else { throw error }
            throw file.problem(for: error, environment: processEnvironment)
        }
        // Before anything is created: a port in use costs one line and leaves the disk as it was.
        try ListenAddress.checkAvailable(host: configuration.host, port: configuration.port)
        // One server per SQLite data directory; PostgreSQL instances share their database instead.
        let lock = configuration.databaseURL == nil ? try DataDirectory.Lock(configuration.dataDirectory) : nil
        if lock != nil {
            // A restored database without its key: say which file to copy, before a new key is made.
            try await SQLiteBackup.requireEncryptionKey(dataDirectory: configuration.dataDirectory,
                                                        configured: configuration.sessions.encryptionKeyBase64)
        }
        ServerLogging.bootstrap(defaultLevel: .info)
        let started = ContinuousClock.now
        let server = try await HandoverServer.start(configuration)
        let storageText = configuration.databaseURL.map { _ in "PostgreSQL" }
            ?? configuration.dataDirectory.appendingPathComponent("handover.sqlite").path
        say("Handover is listening on \(server.baseURL.absoluteString) (public URL \(server.publicURL.absoluteString))")
        say("Database: \(storageText); ready in \(started.duration(to: .now).formatted(.units(allowed: [.milliseconds])))")
        if let notice = server.plainHTTPNotice { say("Note: " + notice) }
        if let key = try await server.createFirstAdminKeyIfNeeded() {
            say(FirstAdminKeyFile.announce(key, in: configuration.dataDirectory, baseURL: server.baseURL,
                                           onTerminal: isatty(STDOUT_FILENO) == 1))
        }
        if let push = configuration.push {
            say("Push: APNs at \(push.baseURL.absoluteString), topic \(push.topic)")
        }
        say("Press Ctrl-C to stop.")
        try await ShutdownSignal.wait()
        say("Stop signal received; shutting down.")
        try await server.shutdown()
        withExtendedLifetime(lock) {}
    }
}

/// Writes a line to standard output at once (unbuffered), so it reaches a pipe or log immediately.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
