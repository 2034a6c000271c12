import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer

/// The flags of `handover serve` for people signing in to the dashboard through the
/// organisation's OpenID Connect provider, and for the dashboard's session timeouts. Each flag
/// has an environment variable of the same meaning; a flag wins over its variable.
struct AdminSignInOptions: ParsableArguments {
    @Option(name: .customLong("admin-oidc-issuer"),
            help: ArgumentHelp("The identity provider's issuer URL (Entra ID, Okta, Keycloak, Ping, …); people then sign in to the dashboard there. Env: HANDOVER_ADMIN_OIDC_ISSUER.",
                               valueName: "url"))
    var issuer: String?

    @Option(name: .customLong("admin-oidc-client-id"),
            help: ArgumentHelp("This server's client id at the provider. Env: HANDOVER_ADMIN_OIDC_CLIENT_ID.", valueName: "id"))
    var clientID: String?

    @Option(name: .customLong("admin-oidc-client-secret"),
            help: ArgumentHelp("Its client secret (prefer the variable: a flag shows in the process list). Env: HANDOVER_ADMIN_OIDC_CLIENT_SECRET.",
                               valueName: "secret"))
    var clientSecret: String?

    @Option(name: .customLong("admin-role-claim"),
            help: ArgumentHelp("The ID token claim whose values map to roles. Env: HANDOVER_ADMIN_ROLE_CLAIM. Default: groups", valueName: "claim"))
    var roleClaim: String?

    @Option(name: .customLong("admin-role-map"),
            help: ArgumentHelp("Which claim values grant which role: claim-value=role or claim-value=role@SITE+SITE, comma-separated; role is viewer, operator or admin. A person whose values map to no role is refused. Env: HANDOVER_ADMIN_ROLE_MAP.",
                               valueName: "map"))
    var roleMap: String?

    @Flag(name: .customLong("allow-key-sign-in"),
          help: "Break-glass: let admin keys open the dashboard while a provider is configured; each use is recorded. Env: HANDOVER_ALLOW_KEY_SIGN_IN=1.")
    var allowKeySignIn = false

    @Option(name: .customLong("dashboard-idle-minutes"),
            help: ArgumentHelp("A dashboard session ends after this many minutes without a request (1 to 1440). Env: HANDOVER_DASHBOARD_IDLE_MINUTES. Default: 15",
                               valueName: "minutes"))
    var idleMinutes: String?

    @Option(name: .customLong("dashboard-session-hours"),
            help: ArgumentHelp("A dashboard session ends this many hours after sign-in (1 to 168). Env: HANDOVER_DASHBOARD_SESSION_HOURS. Default: 12",
                               valueName: "hours"))
    var sessionHours: String?

    /// Applies the flags, then the environment for what no flag gave. A mistake throws a
    /// `ConfigurationError` that names the setting and what is accepted.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func value(_ flag: String?, _ variable: String) -> String? {
            (flag ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 }
        }
        let issuer = value(issuer, "HANDOVER_ADMIN_OIDC_ISSUER")
        let clientID = value(clientID, "HANDOVER_ADMIN_OIDC_CLIENT_ID")
        let clientSecret = value(clientSecret, "HANDOVER_ADMIN_OIDC_CLIENT_SECRET")
        let roleMap = value(roleMap, "HANDOVER_ADMIN_ROLE_MAP")
        if let issuer {
            guard let clientID else {
                throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_CLIENT_ID", problem: "is not set while HANDOVER_ADMIN_OIDC_ISSUER is",
                                         accepted: "the client id the provider gave this server (--admin-oidc-client-id)")
            }
            guard let clientSecret else {
                throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_CLIENT_SECRET", problem: "is not set while HANDOVER_ADMIN_OIDC_ISSUER is",
                                         accepted: "the client secret the provider gave this server")
            }
            guard let roleMap else {
                throw ConfigurationError(setting: "HANDOVER_ADMIN_ROLE_MAP", problem: "is not set while HANDOVER_ADMIN_OIDC_ISSUER is: nobody could sign in",
                                         accepted: "claim-value=role entries, such as handover-admins=admin,icu-leads=operator@ICU")
            }
            let allow = allowKeySignIn || environment["HANDOVER_ALLOW_KEY_SIGN_IN"] == "1"
            configuration.adminSignIn = try AdminSignInSettings(issuer: issuer, clientID: clientID, clientSecret: clientSecret,
                                                                roleClaim: value(roleClaim, "HANDOVER_ADMIN_ROLE_CLAIM") ?? "groups",
                                                                roleMap: roleMap, allowsKeySignIn: allow)
        } else if clientID != nil || roleMap != nil {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_ISSUER", problem: "is not set, but the provider's client id or role map is",
                                     accepted: "the provider's issuer URL (--admin-oidc-issuer), or none of the HANDOVER_ADMIN_OIDC_* settings")
        }
        if let text = value(idleMinutes, "HANDOVER_DASHBOARD_IDLE_MINUTES") {
            guard let minutes = Int(text), (1...1440).contains(minutes) else {
                throw ConfigurationError(setting: idleMinutes != nil ? "--dashboard-idle-minutes" : "HANDOVER_DASHBOARD_IDLE_MINUTES",
                                         problem: "'\(text)' is not a number of minutes", accepted: "whole minutes from 1 to 1440 (default 15)")
            }
            configuration.dashboardSessions.idle = TimeInterval(minutes * 60)
        }
        if let text = value(sessionHours, "HANDOVER_DASHBOARD_SESSION_HOURS") {
            guard let hours = Int(text), (1...168).contains(hours) else {
                throw ConfigurationError(setting: sessionHours != nil ? "--dashboard-session-hours" : "HANDOVER_DASHBOARD_SESSION_HOURS",
                                         problem: "'\(text)' is not a number of hours", accepted: "whole hours from 1 to 168 (default 12)")
            }
            configuration.dashboardSessions.absolute = TimeInterval(hours * 3600)
        }
    }
}
