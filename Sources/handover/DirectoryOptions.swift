import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer

/// SCIM provisioning flags of `handover serve` (issue 67).
struct DirectoryOptions: ParsableArguments {
    @Option(name: .customLong("scim-token"),
            help: ArgumentHelp("The bearer token your directory's SCIM client (Entra ID, Okta) sends to /scim/v2, 32 characters at least (openssl rand -base64 32). Prefer the variable: a flag shows in the process list. Env: HANDOVER_SCIM_TOKEN.",
                               valueName: "token"))
    var scimToken: String?

    @Option(name: .customLong("scim-previous-token"),
            help: ArgumentHelp("The token being replaced, accepted too until the SCIM client sends the new one; then remove it. Env: HANDOVER_SCIM_PREVIOUS_TOKEN.",
                               valueName: "token"))
    var scimPreviousToken: String?

    @Option(name: .customLong("scim-badge-attribute"),
            help: ArgumentHelp("The attribute of a provisioned person that holds their badge; check-out by badge finds them there. Env: HANDOVER_SCIM_BADGE_ATTRIBUTE. Default: urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber",
                               valueName: "attribute"))
    var scimBadgeAttribute: String?

    /// Applies the flags given on top of `configuration` (already read from the environment).
    func apply(to configuration: inout ServerConfiguration) throws {
        if let scimToken {
            let current = try ServerConfiguration.parseSCIMToken(scimToken, setting: "--scim-token")
            configuration.directory.tokens = [current] + configuration.directory.tokens.dropFirst()
        }
        if let scimPreviousToken {
            guard let current = configuration.directory.tokens.first else {
                throw ConfigurationError(setting: "--scim-previous-token", problem: "is given without --scim-token or HANDOVER_SCIM_TOKEN",
                                         accepted: "the new token in --scim-token and the one being replaced in --scim-previous-token")
            }
            configuration.directory.tokens = [current, try ServerConfiguration.parseSCIMToken(scimPreviousToken, setting: "--scim-previous-token")]
        }
        if let scimBadgeAttribute {
            configuration.directory.badgeAttribute = try ServerConfiguration.parseBadgeAttribute(scimBadgeAttribute, setting: "--scim-badge-attribute")
        }
    }
}
