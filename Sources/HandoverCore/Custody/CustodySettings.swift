import Foundation

/// How long a person may hold a device, and how long a custody record keeps who they were.
///
/// - The **lending period**: a device held longer than this after its check-out (or, held by
///   nobody, that long after its last completed hand-over) is overdue. The fleet's period is
///   `--overdue-after` (`HANDOVER_OVERDUE_AFTER`); a site may have its own
///   (`--lending-period ICU=13h`, `HANDOVER_LENDING_PERIODS="ICU=13h,Ward 7=9h"`). A device of a
///   site without its own period takes the fleet's; with neither, it is never overdue.
/// - The **retention**: after this long from its check-in, a custody record loses the person's
///   name and email and keeps the rest (`HANDOVER_CUSTODY_RETENTION`; six years by default, the
///   HIPAA documentation period, 45 CFR 164.316(b)(2)(i)).
public struct CustodySettings: Sendable, Equatable {
    /// The fleet's lending period; nil: only the devices of a site with its own are ever overdue.
    public var fleetLendingPeriod: TimeInterval?
    /// Lending periods by site, overriding the fleet's (a site is compared ignoring case).
    public var siteLendingPeriods: [SiteName: TimeInterval]
    /// How long a checked-in custody keeps the person's name and email.
    public var retention: TimeInterval

    /// Six years of 365.25 days.
    public static let defaultRetention: TimeInterval = 6 * 365.25 * 86_400

    public init(fleetLendingPeriod: TimeInterval? = nil, siteLendingPeriods: [SiteName: TimeInterval] = [:],
                retention: TimeInterval = CustodySettings.defaultRetention) {
        self.fleetLendingPeriod = fleetLendingPeriod
        self.siteLendingPeriods = siteLendingPeriods
        self.retention = retention
    }

    /// Whether any device can become overdue.
    public var checksLending: Bool { fleetLendingPeriod != nil || !siteLendingPeriods.isEmpty }

    /// The lending period of a device of `site` (as stored): the site's own, else the fleet's.
    public func lendingPeriod(site: String?) -> TimeInterval? {
        let key = site.map(SiteName.key(of:))
        return siteLendingPeriods.first { $0.key.key == key }?.value ?? fleetLendingPeriod
    }
}
