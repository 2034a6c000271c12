import Foundation
import HandoverCore

extension ServerConfiguration {
    /// Reads `HANDOVER_LENDING_PERIODS` and `HANDOVER_CUSTODY_RETENTION` into `configuration`.
    package static func readCustodySettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let periods = value("HANDOVER_LENDING_PERIODS") {
            for entry in periods.split(separator: ",", omittingEmptySubsequences: true) {
                let (site, period) = try parseLendingPeriod(String(entry), setting: "HANDOVER_LENDING_PERIODS")
                configuration.custody.siteLendingPeriods[site] = period
            }
        }
        if let retention = value("HANDOVER_CUSTODY_RETENTION") {
            configuration.custody.retention = try parseRetention(retention, setting: "HANDOVER_CUSTODY_RETENTION")
        }
    }

    /// Reads one site's lending period, `SITE=DURATION` such as `ICU=13h` (the site a
    /// ``SiteName``, as the registry names it in any case; the duration as `--overdue-after`
    /// takes it).
    public static func parseLendingPeriod(_ text: String, setting: String) throws -> (site: SiteName, period: TimeInterval) {
        let accepted = "SITE=DURATION, such as ICU=13h (several: \"ICU=13h,Ward 7=9h\" in HANDOVER_LENDING_PERIODS, or --lending-period once each)"
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else {
            throw ConfigurationError(setting: setting, problem: "'\(text.prefix(120))' is not a site's lending period", accepted: accepted)
        }
        let site: SiteName
        do throws(SiteNameError) { site = try SiteName(parts[0]) } catch {
            throw ConfigurationError(setting: setting, problem: "'\(text.prefix(120))' is not a site's lending period: \(error)", accepted: accepted)
        }
        return (site, try parseOverdueAfter(parts[1].trimmingCharacters(in: .whitespaces), setting: "\(setting) (\(site))"))
    }

    /// Reads a retention period: years (`6y`), days (`2190d`) or hours (`72h`), from a day to 50
    /// years.
    public static func parseRetention(_ text: String, setting: String) throws -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("y", 365.25 * 86_400), ("d", 86_400), ("h", 3600)]
        let seconds = units.first { trimmed.hasSuffix($0.0) }.flatMap { unit in Double(trimmed.dropLast()).map { $0 * unit.1 } }
        guard let seconds, seconds.isFinite, (86_400...(50 * 365.25 * 86_400)).contains(seconds) else {
            throw ConfigurationError(setting: setting, problem: "'\(text)' is not a retention period from a day to 50 years",
                                     accepted: "years, days or hours such as 6y (the default, HIPAA's documentation period), 2190d or 72h")
        }
        return seconds.rounded()
    }
}
