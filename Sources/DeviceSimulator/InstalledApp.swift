import Foundation

/// An app on the simulated phone: its identity, what links it claims, and what it is.
public struct InstalledApp: Sendable {
    /// What runs inside the app.
    public enum Kind: Sendable {
        /// A logout target with a behaviour.
        case target(AppBehaviour)
        /// The launcher: callbacks it receives go to its `LogoutInitiator` (see
        /// ``SimulatedPhone/attach(_:to:)``).
        case launcher
    }

    /// A short name (`mail`), used in reports and storage paths.
    public var name: String
    /// The Apple team identifier (`ABCDE12345`).
    public var teamID: String
    /// The bundle identifier (`com.example.mail`).
    public var bundleID: String
    /// Associated domains entitlement entries: `applinks:host[:port][?mode=developer]`.
    public var associatedDomains: [String]
    /// Custom URL schemes the app declares (`mail`).
    public var customSchemes: [String]
    public var kind: Kind
    /// Hosts a target app built on `LogoutReceiver` accepts callbacks to (its
    /// `CallbackPolicy.allowedHosts`); `nil` declares no allowlist. Apps without a receiver
    /// (`slow`, `silent`, `premature`) ignore it, as apps with their own link code do.
    public var callbackAllowlist: [String]?

    public init(name: String, teamID: String, bundleID: String, associatedDomains: [String], customSchemes: [String] = [], kind: Kind,
                callbackAllowlist: [String]? = nil) {
        self.callbackAllowlist = callbackAllowlist
        self.name = name
        self.teamID = teamID
        self.bundleID = bundleID
        self.associatedDomains = associatedDomains
        self.customSchemes = customSchemes.map { $0.lowercased() }
        self.kind = kind
    }

    /// `TEAMID.bundle.id`, as the AASA file names the app.
    public var appID: String { "\(teamID).\(bundleID)" }

    /// The `applinks:` domains, each with whether developer mode was asked for.
    var appLinkDomains: [(domain: String, developerMode: Bool)] {
        associatedDomains.compactMap { entry in
            guard entry.hasPrefix("applinks:") else { return nil }
            let rest = entry.dropFirst("applinks:".count)
            let parts = rest.split(separator: "?", maxSplits: 1)
            return (String(parts[0]).lowercased(), parts.count > 1 && parts[1] == "mode=developer")
        }
    }
}
