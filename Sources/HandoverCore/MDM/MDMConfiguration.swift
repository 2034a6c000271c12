import Foundation
import HandoverProtocol

/// The fleet's MDM and what to ask of it when a device goes out of service or overdue.
///
/// Set with `HANDOVER_MDM` (`jamf`, `intune` or `webhook`), `HANDOVER_MDM_ACTION` (`lock`,
/// `lost_mode`, `erase`, or, for Jamf Pro, `return_to_service`; the last two wait for a person to
/// confirm them on the dashboard, and Return to Service needs `HANDOVER_MDM_RTS_WIFI_PROFILE`, the
/// `.mobileconfig` the erased device joins Wi-Fi with, and for a device not enrolled through
/// Automated Device Enrollment `HANDOVER_MDM_RTS_MDM_PROFILE`),
/// `HANDOVER_MDM_MESSAGE`, `HANDOVER_MDM_PHONE` and `HANDOVER_MDM_FOOTNOTE` (shown on the locked
/// screen), `HANDOVER_MDM_DRY_RUN=1` (record what would be sent; send nothing), and the
/// connector's credentials:
/// - Jamf Pro: `HANDOVER_MDM_URL` (`https://yourserver.jamfcloud.com`), `HANDOVER_MDM_CLIENT_ID`,
///   `HANDOVER_MDM_CLIENT_SECRET` (an API client with the "Send Mobile Device Remote Wipe / Lost
///   Mode / Lock" and "Read Mobile Devices" privileges);
/// - Intune: `HANDOVER_MDM_TENANT` (the Entra tenant id), `HANDOVER_MDM_CLIENT_ID`,
///   `HANDOVER_MDM_CLIENT_SECRET` (an app registration with the application permission
///   `DeviceManagementManagedDevices.PrivilegedOperations.All` and `…ReadWrite.All`);
/// - webhook: nothing more; the command goes to webhooks subscribed to `device.mdm_command`.
///
/// `docs/mdm.md` has the set-up and the vendors' reference pages.
public struct MDMConfiguration: Sendable {
    public enum Connector: Sendable, Equatable {
        case jamf(baseURL: URL, clientID: String, clientSecret: String)
        /// `loginBaseURL` and `graphBaseURL` are Microsoft's unless a test points them elsewhere.
        case intune(tenantID: String, clientID: String, clientSecret: String, loginBaseURL: URL, graphBaseURL: URL)
        case webhook

        public var name: String {
            switch self {
            case .jamf: "jamf"
            case .intune: "intune"
            case .webhook: "webhook"
            }
        }
    }

    public var connector: Connector
    public var action: MDMAction
    /// On the locked screen (lock and Lost Mode).
    public var message: String?
    public var phoneNumber: String?
    public var footnote: String?
    public var dryRun: Bool = false
    /// For Return to Service: the Wi-Fi profile the erased device installs (a `.mobileconfig`).
    public var returnToServiceWiFiProfile: Data?
    /// For Return to Service on a device not enrolled through Automated Device Enrollment: its
    /// MDM enrollment profile.
    public var returnToServiceMDMProfile: Data?
    /// Attempts before a command is shown as failed (back-off doubles from 2 s).
    public var maxAttempts: Int = 8

    public init(connector: Connector, action: MDMAction, message: String? = nil, phoneNumber: String? = nil, footnote: String? = nil,
                dryRun: Bool = false) {
        self.connector = connector
        self.action = action
        self.message = message
        self.phoneNumber = phoneNumber
        self.footnote = footnote
        self.dryRun = dryRun
    }

    /// Reads the `HANDOVER_MDM_*` variables; nil when `HANDOVER_MDM` is not set.
    package static func fromEnvironment(_ environment: [String: String]) throws -> MDMConfiguration? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let kind = value("HANDOVER_MDM") else { return nil }
        func required(_ name: String, _ accepted: String) throws -> String {
            guard let text = value(name) else {
                throw ConfigurationError(setting: name, problem: "is missing (needed with HANDOVER_MDM=\(kind))", accepted: accepted)
            }
            return text
        }
        func url(_ name: String, default fallback: String? = nil) throws -> URL {
            let text = value(name) ?? fallback
            guard let text, let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text),
                  let scheme = url.scheme?.lowercased(), scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(url.host ?? "")),
                  url.host != nil, url.query == nil else {
                throw ConfigurationError(setting: name, problem: "'\(text ?? "")' is not an https URL", accepted: "https://yourserver.jamfcloud.com (http only on loopback)")
            }
            return url
        }
        /// A profile file's bytes: a `.mobileconfig`, signed or not, up to 1 MB.
        func profile(_ name: String, required: Bool) throws -> Data? {
            let accepted = "the path of a .mobileconfig file (exported from Jamf Pro or Apple Configurator), up to 1 MB"
            guard let path = value(name) else {
                guard !required else {
                    throw ConfigurationError(setting: name, problem: "is missing: Return to Service needs the Wi-Fi profile the erased phone joins (an iPhone has no Ethernet)",
                                             accepted: accepted)
                }
                return nil
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(setting: name, problem: "'\(path)' cannot be read", accepted: accepted)
            }
            guard !data.isEmpty, data.count <= 1 << 20 else {
                throw ConfigurationError(setting: name, problem: "'\(path)' is \(data.count) bytes", accepted: accepted)
            }
            // An unsigned profile is an XML or binary property list; a signed one is CMS (DER, 0x30).
            let text = String(decoding: data.prefix(64), as: UTF8.self)
            guard text.hasPrefix("<?xml") || text.hasPrefix("<plist") || data.starts(with: Data("bplist".utf8)) || data.first == 0x30 else {
                throw ConfigurationError(setting: name, problem: "'\(path)' is not a configuration profile (neither a property list nor a signed profile)",
                                         accepted: accepted)
            }
            return data
        }
        let connector: Connector
        switch kind.lowercased() {
        case "jamf":
            connector = .jamf(baseURL: try url("HANDOVER_MDM_URL"),
                              clientID: try required("HANDOVER_MDM_CLIENT_ID", "the Jamf Pro API client's id"),
                              clientSecret: try required("HANDOVER_MDM_CLIENT_SECRET", "the Jamf Pro API client's secret"))
        case "intune":
            let tenant = try required("HANDOVER_MDM_TENANT", "the Entra tenant id (a GUID) or domain")
            guard tenant.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }) else {
                throw ConfigurationError(setting: "HANDOVER_MDM_TENANT", problem: "'\(tenant)' is not a tenant", accepted: "the Entra tenant id (a GUID) or domain")
            }
            connector = .intune(tenantID: tenant, clientID: try required("HANDOVER_MDM_CLIENT_ID", "the app registration's client id"),
                                clientSecret: try required("HANDOVER_MDM_CLIENT_SECRET", "the app registration's client secret"),
                                loginBaseURL: try url("HANDOVER_MDM_LOGIN_URL", default: "https://login.microsoftonline.com"),
                                graphBaseURL: try url("HANDOVER_MDM_GRAPH_URL", default: "https://graph.microsoft.com"))
        case "webhook":
            connector = .webhook
        default:
            throw ConfigurationError(setting: "HANDOVER_MDM", problem: "'\(kind)' is not a connector", accepted: "jamf, intune or webhook")
        }
        let accepted = "lock, lost_mode, erase or (Jamf Pro) return_to_service"
        let actionText = try required("HANDOVER_MDM_ACTION", accepted)
        guard let action = MDMAction(rawValue: actionText.lowercased()), action.isRemedy else {
            let problem = actionText.lowercased() == MDMAction.disableLostMode.rawValue
                ? "'\(actionText)' is not a policy: Handover lifts the Lost Mode it put on a device by itself when the device goes back in service"
                : "'\(actionText)' is not an action"
            throw ConfigurationError(setting: "HANDOVER_MDM_ACTION", problem: problem, accepted: accepted)
        }
        if action == .returnToService, case .intune = connector {
            throw ConfigurationError(setting: "HANDOVER_MDM_ACTION",
                                     problem: "Return to Service is offered for Jamf Pro only: Microsoft Graph's wipe cannot carry the Wi-Fi profile",
                                     accepted: "lock, lost_mode or erase with HANDOVER_MDM=intune")
        }
        var configuration = MDMConfiguration(connector: connector, action: action, message: value("HANDOVER_MDM_MESSAGE"),
                                             phoneNumber: value("HANDOVER_MDM_PHONE"), footnote: value("HANDOVER_MDM_FOOTNOTE"))
        if action == .returnToService, case .jamf = connector {
            configuration.returnToServiceWiFiProfile = try profile("HANDOVER_MDM_RTS_WIFI_PROFILE", required: true)
            configuration.returnToServiceMDMProfile = try profile("HANDOVER_MDM_RTS_MDM_PROFILE", required: false)
        }
        if action == .lostMode, configuration.message == nil, configuration.phoneNumber == nil {
            throw ConfigurationError(setting: "HANDOVER_MDM_MESSAGE", problem: "Lost Mode needs a message or a phone number (HANDOVER_MDM_PHONE)",
                                     accepted: "the text shown on the locked screen, such as 'Return to the ward 7 desk'")
        }
        for (name, text) in [("HANDOVER_MDM_MESSAGE", configuration.message), ("HANDOVER_MDM_PHONE", configuration.phoneNumber),
                             ("HANDOVER_MDM_FOOTNOTE", configuration.footnote)] {
            if let text, text.count > 200 || text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                throw ConfigurationError(setting: name, problem: "is longer than 200 characters or holds control characters", accepted: "one short line")
            }
        }
        if let dry = value("HANDOVER_MDM_DRY_RUN") {
            switch dry.lowercased() {
            case "1", "true", "yes", "on": configuration.dryRun = true
            case "0", "false", "no", "off": configuration.dryRun = false
            default: throw ConfigurationError(setting: "HANDOVER_MDM_DRY_RUN", problem: "'\(dry)' is not a switch", accepted: "1 or 0")
            }
        }
        return configuration
    }
}
