import Foundation
import HandoverCore
import SCIM

/// Provisioning from the organisation's directory by SCIM 2.0 (issue 67): the bearer tokens its
/// SCIM client (Entra ID, Okta) sends, and where a person's badge is in their resource.
public struct DirectorySettings: Sendable, Equatable {
    /// `HANDOVER_SCIM_TOKEN`, then `HANDOVER_SCIM_PREVIOUS_TOKEN` while the client moves to the new
    /// one: each is accepted. Empty: `/scim/v2` answers 401 to everyone.
    public var tokens: [String] = []
    /// `HANDOVER_SCIM_BADGE_ATTRIBUTE`: the attribute holding a person's badge.
    public var badgeAttribute = DirectoryProvisioning.employeeNumber

    public init() {}

    /// What a token must be: what Entra ID and Okta let an admin paste as a bearer token.
    public static let acceptedToken = "a secret of 32 to 512 printable ASCII characters without spaces, such as the output of `openssl rand -base64 32`"
}

extension ServerConfiguration {
    /// Reads `HANDOVER_SCIM_TOKEN`, `HANDOVER_SCIM_PREVIOUS_TOKEN` and `HANDOVER_SCIM_BADGE_ATTRIBUTE`.
    package static func readDirectorySettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        configuration.directory.tokens = try [("HANDOVER_SCIM_TOKEN", value("HANDOVER_SCIM_TOKEN")),
                                              ("HANDOVER_SCIM_PREVIOUS_TOKEN", value("HANDOVER_SCIM_PREVIOUS_TOKEN"))]
            .compactMap { setting, text in try text.map { try parseSCIMToken($0, setting: setting) } }
        if value("HANDOVER_SCIM_PREVIOUS_TOKEN") != nil, value("HANDOVER_SCIM_TOKEN") == nil {
            throw ConfigurationError(setting: "HANDOVER_SCIM_PREVIOUS_TOKEN", problem: "is set while HANDOVER_SCIM_TOKEN is not",
                                     accepted: "the new token in HANDOVER_SCIM_TOKEN and the one being replaced in HANDOVER_SCIM_PREVIOUS_TOKEN")
        }
        if let attribute = value("HANDOVER_SCIM_BADGE_ATTRIBUTE") {
            configuration.directory.badgeAttribute = try parseBadgeAttribute(attribute, setting: "HANDOVER_SCIM_BADGE_ATTRIBUTE")
        }
    }

    /// Reads a SCIM bearer token.
    public static func parseSCIMToken(_ text: String, setting: String) throws -> String {
        guard (32...512).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ConfigurationError(setting: setting, problem: "is \(text.utf8.count) bytes\(text.utf8.allSatisfy { (0x21...0x7E).contains($0) } ? "" : " with a space or a character outside printable ASCII")",
                                     accepted: DirectorySettings.acceptedToken)
        }
        return text
    }

    /// Reads the badge's attribute: a SCIM attribute path such as `employeeNumber` of the
    /// enterprise extension (its full URI path) or a core attribute (`externalId`, `nickName`).
    public static func parseBadgeAttribute(_ text: String, setting: String) throws -> SCIMAttributePath {
        let accepted = "an attribute of a SCIM User holding a string: urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber (the default), or a core one such as nickName"
        do {
            let path = try SCIMAttributePath(parsing: text.trimmingCharacters(in: .whitespaces))
            guard path.subAttribute == nil, !["id", "username", "meta", "emails", "active", "groups"].contains(path.attribute.lowercased()) else {
                throw ConfigurationError(setting: setting, problem: "'\(text.prefix(120))' names an attribute that cannot hold a badge", accepted: accepted)
            }
            return path
        } catch let error as SCIMError {
            throw ConfigurationError(setting: setting, problem: error.detail, accepted: accepted)
        }
    }
}
