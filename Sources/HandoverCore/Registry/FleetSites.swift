import FluentKit
import Foundation
import SQLKit

/// The sites the fleet's devices are at, for `handover config check`: a lending period for a site
/// no device has can never apply, and is most likely a misspelling of one that does (issue 66).
public enum FleetSites {
    /// Each site's comparison key (``SiteName/key``) with the name as a device has it written.
    public static func all(on database: any Database) async throws -> [String: String] {
        guard let sql = database as? any SQLDatabase else { return [:] }
        let rows = try await sql.raw("SELECT DISTINCT site, site_key FROM devices WHERE site_key IS NOT NULL").all()
        var sites: [String: String] = [:]
        for row in rows {
            let key = try row.decode(column: "site_key", as: String.self)
            let written = try row.decode(column: "site", as: String?.self)
            sites[key] = sites[key] ?? written ?? key
        }
        return sites
    }

    /// The sites of `periods` that no device has, as written in the setting, in its order.
    public static func unknown(_ periods: [SiteName], among sites: [String: String]) -> [SiteName] {
        periods.filter { sites[$0.key] == nil }
    }
}
