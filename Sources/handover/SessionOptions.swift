import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer

/// Sign in with Apple and session flags of `handover serve`.
struct SessionOptions: ParsableArguments {
    @Option(name: .customLong("apple-client-ids"),
            help: ArgumentHelp("Comma-separated bundle ids / Services IDs whose Apple identity tokens are accepted. Env: HANDOVER_APPLE_CLIENT_IDS.",
                               valueName: "ids"))
    var appleClientIDs: String?

    @Option(name: .customLong("apple-team-id"), help: ArgumentHelp("Your Apple developer team id. Env: HANDOVER_APPLE_TEAM_ID.", valueName: "id"))
    var appleTeamID: String?

    @Option(name: .customLong("apple-key-id"),
            help: ArgumentHelp("The 10-character id of your Sign in with Apple key. Env: HANDOVER_APPLE_KEY_ID.", valueName: "id"))
    var appleKeyID: String?

    @Option(name: .customLong("apple-private-key-file"),
            help: ArgumentHelp("The .p8 file of that key. Env: HANDOVER_APPLE_PRIVATE_KEY_FILE.", valueName: "file"))
    var applePrivateKeyFile: String?

    @Option(name: .customLong("apple-base-url"),
            help: ArgumentHelp("Apple's origin, for staging or a local test server. Env: HANDOVER_APPLE_BASE_URL. Default: https://appleid.apple.com",
                               valueName: "url"))
    var appleBaseURL: String?

    @Option(name: .customLong("session-ttl"),
            help: ArgumentHelp("Access-token lifetime in seconds (30 to 86400); revocation reaches every instance within it. Env: HANDOVER_SESSION_TTL. Default: 300",
                               valueName: "seconds"))
    var sessionTTL: String?

    @Flag(name: .customLong("strict-sessions"),
          help: "Check each access token's session in the database on every request, so sign-outs hold at once on every instance. Env: HANDOVER_STRICT_SESSIONS=1.")
    var strictSessions = false

    @Option(name: .customLong("custody-limit"),
            help: ArgumentHelp("How many devices one person may hold at once; a sign-in on one more is refused, naming the device they hold (0: no limit). Env: HANDOVER_CUSTODY_LIMIT. Default: 1",
                               valueName: "devices"))
    var custodyLimit: String?

    @Option(name: .customLong("badge-lookup-url"),
            help: ArgumentHelp("Your badge lookup: GET <url>?id=<badge> answers {\"user\": \"<login>\"}; launchers may then check a person out by badge. Env: HANDOVER_BADGE_LOOKUP_URL.",
                               valueName: "url"))
    var badgeLookupURL: String?

    @Option(name: .customLong("lending-period"), parsing: .singleValue,
            help: ArgumentHelp("A site's own lending period, SITE=DURATION such as ICU=13h (once per site); its devices are overdue that long after their check-out. Other sites take --overdue-after. Env: HANDOVER_LENDING_PERIODS=\"ICU=13h,Ward 7=9h\".",
                               valueName: "site=duration"))
    var lendingPeriods: [String] = []

    @Option(name: .customLong("custody-retention"),
            help: ArgumentHelp("How long a custody record keeps the person's name and email after its check-in (6y, 2190d, 72h); then they are removed and the rest is kept. Env: HANDOVER_CUSTODY_RETENTION. Default: 6y (HIPAA's documentation period)",
                               valueName: "period"))
    var custodyRetention: String?

    /// Applies the flags given on top of `configuration` (already read from the environment).
    /// A mistake throws a ``ConfigurationError``, printed as one line.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if let sessionTTL { configuration.sessions.accessTokenLifetime = try ServerConfiguration.parseSessionTTL(sessionTTL, setting: "--session-ttl") }
        if strictSessions { configuration.sessions.strict = true }
        if let badgeLookupURL { configuration.badgeLookupURL = try ServerConfiguration.parsePublicURL(badgeLookupURL, setting: "--badge-lookup-url") }
        if let custodyLimit { configuration.sessions.custodyLimit = try ServerConfiguration.parseCustodyLimit(custodyLimit, setting: "--custody-limit") }
        for entry in lendingPeriods {
            let (site, period) = try ServerConfiguration.parseLendingPeriod(entry, setting: "--lending-period")
            configuration.custody.siteLendingPeriods[site] = period
        }
        if let custodyRetention { configuration.custody.retention = try ServerConfiguration.parseRetention(custodyRetention, setting: "--custody-retention") }
        if appleClientIDs != nil || appleTeamID != nil || appleKeyID != nil || applePrivateKeyFile != nil {
            let fromEnvironment = configuration.signInWithApple
            configuration.signInWithApple = try ServerConfiguration.appleConfiguration(
                clientIDs: appleClientIDs ?? fromEnvironment?.clientIDs.joined(separator: ","),
                teamID: appleTeamID ?? fromEnvironment?.teamID, keyID: appleKeyID ?? fromEnvironment?.keyID,
                privateKeyFile: applePrivateKeyFile ?? environment["HANDOVER_APPLE_PRIVATE_KEY_FILE"],
                baseURL: appleBaseURL ?? fromEnvironment?.baseURL.absoluteString, names: .flags)
        } else if let appleBaseURL, configuration.signInWithApple != nil {
            configuration.signInWithApple?.baseURL = try ServerConfiguration.parsePublicURL(appleBaseURL, setting: "--apple-base-url")
        }
    }
}
