import Foundation
import HandoverCore

/// Sign in with Apple, as this server uses it: where Apple is, which client ids may sign in, and
/// the key that signs the client secret.
///
/// Set with `HANDOVER_APPLE_CLIENT_IDS`, `HANDOVER_APPLE_TEAM_ID`, `HANDOVER_APPLE_KEY_ID`,
/// `HANDOVER_APPLE_PRIVATE_KEY_FILE` and optionally `HANDOVER_APPLE_BASE_URL` (or the matching
/// `handover serve` flags). Without client ids, `/auth/apple` answers 404 `not_configured`.
public struct SignInWithAppleConfiguration: Sendable {
    /// Apple's origin; a local server in tests and staging.
    public var baseURL: URL = URL(string: "https://appleid.apple.com")!
    /// The bundle ids and Services IDs whose identity tokens are accepted (`aud`).
    public var clientIDs: [String]
    /// Your Apple developer team id.
    public var teamID: String
    /// The 10-character id of the Sign in with Apple key.
    public var keyID: String
    /// The `.p8` key's PEM text.
    public var privateKeyPEM: String

    public init(clientIDs: [String], teamID: String, keyID: String, privateKeyPEM: String, baseURL: URL? = nil) {
        self.clientIDs = clientIDs
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        if let baseURL { self.baseURL = baseURL }
    }
}

/// The server's own sessions: how long access tokens live and how revocation reaches them.
public struct SessionSettings: Sendable {
    /// Access-token lifetime in seconds (`HANDOVER_SESSION_TTL`), 300 by default. A revoked
    /// session's access tokens stop working on every instance within this time.
    public var accessTokenLifetime: TimeInterval = 300
    /// Refresh-token lifetime: a session unused this long ends. 30 days.
    public var refreshTokenLifetime: TimeInterval = 30 * 86_400
    /// Strict sessions (`--strict-sessions`, `HANDOVER_STRICT_SESSIONS=1`): every authenticated
    /// request also reads its session's row, so a revocation takes effect at once on every
    /// instance, at the price of one indexed read per request.
    public var strict: Bool = false
    /// How often the access-token signing key is replaced. One day.
    public var keyRotationInterval: TimeInterval = 86_400
    /// How long a new signing key is in the JWKS before it signs, and so how long a backend may
    /// cache the JWKS (`Cache-Control: max-age`): a quarter of the rotation, at most an hour.
    public var keyPublicationLead: TimeInterval { min(3600, keyRotationInterval / 4) }
    /// How often Apple's refresh token is checked on refresh: at most once a day (Apple throttles more).
    public var appleValidationInterval: TimeInterval = 86_400
    /// The AES-256-GCM key for secrets at rest, base64 (`HANDOVER_TOKEN_ENCRYPTION_KEY`). When
    /// `nil`, one is generated into the data directory on first start (`token-encryption.key`);
    /// several instances must share one, so set it when you run more than one.
    public var encryptionKeyBase64: String?

    public init() {}
}

extension ServerConfiguration {
    /// Reads the Sign in with Apple and session settings from the environment into `configuration`.
    static func readSessionSettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let ttl = value("HANDOVER_SESSION_TTL") {
            configuration.sessions.accessTokenLifetime = try parseSessionTTL(ttl, setting: "HANDOVER_SESSION_TTL")
        }
        if let strict = value("HANDOVER_STRICT_SESSIONS") {
            configuration.sessions.strict = try parseSwitch(strict, setting: "HANDOVER_STRICT_SESSIONS")
        }
        if let key = value("HANDOVER_TOKEN_ENCRYPTION_KEY") { configuration.sessions.encryptionKeyBase64 = key }
        configuration.smtp = try SMTPConfiguration.fromEnvironment(environment)
        if let folder = value("HANDOVER_MAIL_DROP_DIR") { configuration.mailDropDirectory = URL(fileURLWithPath: folder) }
        configuration.signInWithApple = try appleConfiguration(
            clientIDs: value("HANDOVER_APPLE_CLIENT_IDS"), teamID: value("HANDOVER_APPLE_TEAM_ID"),
            keyID: value("HANDOVER_APPLE_KEY_ID"), privateKeyFile: value("HANDOVER_APPLE_PRIVATE_KEY_FILE"),
            baseURL: value("HANDOVER_APPLE_BASE_URL"), names: .environment)
    }

    /// Where each Apple setting came from, for error messages.
    public enum AppleSettingNames: Sendable {
        case environment, flags

        func name(_ field: String) -> String {
            switch (self, field) {
            case (.environment, "clientIDs"): "HANDOVER_APPLE_CLIENT_IDS"
            case (.environment, "teamID"): "HANDOVER_APPLE_TEAM_ID"
            case (.environment, "keyID"): "HANDOVER_APPLE_KEY_ID"
            case (.environment, "privateKeyFile"): "HANDOVER_APPLE_PRIVATE_KEY_FILE"
            case (.environment, _): "HANDOVER_APPLE_BASE_URL"
            case (.flags, "clientIDs"): "--apple-client-ids"
            case (.flags, "teamID"): "--apple-team-id"
            case (.flags, "keyID"): "--apple-key-id"
            case (.flags, "privateKeyFile"): "--apple-private-key-file"
            case (.flags, _): "--apple-base-url"
            }
        }
    }

    /// Builds a Sign in with Apple configuration from its parts, or `nil` when none is given.
    /// All four of client ids, team id, key id and key file are needed once any is.
    public static func appleConfiguration(clientIDs: String?, teamID: String?, keyID: String?, privateKeyFile: String?,
                                          baseURL: String?, names: AppleSettingNames) throws -> SignInWithAppleConfiguration? {
        guard clientIDs != nil || teamID != nil || keyID != nil || privateKeyFile != nil else { return nil }
        func required(_ value: String?, _ field: String, _ accepted: String) throws -> String {
            guard let value, !value.isEmpty else {
                throw ConfigurationError(setting: names.name(field), problem: "is missing (Sign in with Apple needs client ids, team id, key id and key file together)",
                                         accepted: accepted)
            }
            return value
        }
        let ids = try required(clientIDs, "clientIDs", "comma-separated bundle ids or Services IDs, e.g. com.example.app,com.example.web")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !ids.isEmpty else {
            throw ConfigurationError(setting: names.name("clientIDs"), problem: "names no client id", accepted: "com.example.app[,com.example.web]")
        }
        let team = try required(teamID, "teamID", "your 10-character team id, e.g. ABCDE12345")
        let key = try required(keyID, "keyID", "the 10-character id of your Sign in with Apple key")
        guard key.count == 10, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ConfigurationError(setting: names.name("keyID"), problem: "'\(key)' is not a 10-character key id", accepted: "10 letters and digits, e.g. ABC123DEFG")
        }
        let file = try required(privateKeyFile, "privateKeyFile", "the path of the .p8 file Apple let you download")
        let pem: String
        do { pem = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ConfigurationError(setting: names.name("privateKeyFile"), problem: "'\(file)' cannot be read", accepted: "a readable .p8 file (PEM, BEGIN PRIVATE KEY)")
        }
        guard pem.contains("BEGIN PRIVATE KEY") else {
            throw ConfigurationError(setting: names.name("privateKeyFile"), problem: "'\(file)' is not a PEM private key", accepted: "the .p8 file Apple let you download")
        }
        var base: URL?
        if let baseURL { base = try parsePublicURL(baseURL, setting: names.name("baseURL")) }
        return SignInWithAppleConfiguration(clientIDs: ids, teamID: team, keyID: key, privateKeyPEM: pem, baseURL: base)
    }

    /// Checks an access-token lifetime: whole seconds from 30 to 86,400.
    public static func parseSessionTTL(_ text: String, setting: String) throws -> TimeInterval {
        guard let seconds = Int(text), (30...86_400).contains(seconds) else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' is not an access-token lifetime", accepted: "whole seconds from 30 to 86400 (default 300)")
        }
        return TimeInterval(seconds)
    }

    static func parseSwitch(_ text: String, setting: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(setting: setting, problem: "'\(text)' is not a switch", accepted: "1 or 0")
        }
    }
}
