import Foundation
import HandoverCore

extension ServerConfiguration {
    /// Reads `HANDOVER_ALERT_CONTACTS` and `HANDOVER_NOT_SEEN_AFTER` into `configuration`.
    package static func readAlertSettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let contacts = value("HANDOVER_ALERT_CONTACTS") {
            try parseAlertContacts(contacts, setting: "HANDOVER_ALERT_CONTACTS", into: &configuration.alerts)
        }
        if let after = value("HANDOVER_NOT_SEEN_AFTER") {
            configuration.alerts.notSeenAfter = try parseNotSeenAfter(after, setting: "HANDOVER_NOT_SEEN_AFTER")
        }
    }

    /// Adds the contacts `text` names (see ``AlertSettings/parseContacts(_:)``) to `settings`.
    public static func parseAlertContacts(_ text: String, setting: String, into settings: inout AlertSettings) throws {
        do throws(AlertSettingsError) {
            try settings.parseContacts(text)
        } catch {
            throw ConfigurationError(setting: setting, problem: "\(error)", accepted: AlertSettings.acceptedContacts)
        }
    }

    /// Reads how long a device may go unseen: days (`3d`), hours (`36h`) or minutes (`90m`), from
    /// an hour to 90 days.
    public static func parseNotSeenAfter(_ text: String, setting: String) throws -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("d", 86_400), ("h", 3600), ("m", 60)]
        let seconds = units.first { trimmed.hasSuffix($0.0) }.flatMap { unit in Double(trimmed.dropLast()).map { $0 * unit.1 } }
        guard let seconds, seconds.isFinite, (3600...(90 * 86_400)).contains(seconds) else {
            throw ConfigurationError(setting: setting, problem: "'\(text.prefix(60))' is not a duration from an hour to 90 days",
                                     accepted: "days, hours or minutes such as 3d, 36h or 90m (a device off its charger over a long weekend, say)")
        }
        return seconds.rounded()
    }
}
