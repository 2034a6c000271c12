import Foundation
import Mail
import HandoverCore

extension ServerConfiguration {
    /// Checks a custody limit: how many devices one person may hold at once, 0 to 100 (0: no limit).
    public static func parseCustodyLimit(_ text: String, setting: String) throws -> Int {
        guard let limit = Int(text.trimmingCharacters(in: .whitespaces)), (0...100).contains(limit) else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' is not a number of devices",
                                     accepted: "a whole number from 0 to 100: how many devices one person may hold at once (default 1; 0 for no limit)")
        }
        return limit
    }

    /// Reads the Sign in with Apple and session settings from the environment into `configuration`.
    package static func readSessionSettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let ttl = value("HANDOVER_SESSION_TTL") {
            configuration.sessions.accessTokenLifetime = try parseSessionTTL(ttl, setting: "HANDOVER_SESSION_TTL")
        }
        if let strict = value("HANDOVER_STRICT_SESSIONS") {
            configuration.sessions.strict = try parseSwitch(strict, setting: "HANDOVER_STRICT_SESSIONS")
        }
        if let key = value("HANDOVER_TOKEN_ENCRYPTION_KEY") {
            _ = try EncryptionKeyFile.configured(key)  // refused here, by `config check` as by `serve`
            configuration.sessions.encryptionKeyBase64 = key
        }
        if let url = value("HANDOVER_BADGE_LOOKUP_URL") {
            configuration.badgeLookupURL = try parsePublicURL(url, setting: "HANDOVER_BADGE_LOOKUP_URL")
        }
        if let limit = value("HANDOVER_CUSTODY_LIMIT") {
            configuration.sessions.custodyLimit = try parseCustodyLimit(limit, setting: "HANDOVER_CUSTODY_LIMIT")
        }
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

    package static func parseSwitch(_ text: String, setting: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(setting: setting, problem: "'\(text)' is not a switch", accepted: "1 or 0")
        }
    }
}
