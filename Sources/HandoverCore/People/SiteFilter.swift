import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// Which devices a person may see: every site (`nil` sites), or the named ones. Built from a
/// session's ``Permissions/visibleSites``; every list, count, search, scorecard, run view and
/// history of the dashboard goes through one, and a device outside it answers 404.
package struct SiteFilter: Sendable, Equatable, Hashable {
    /// nil: every device, with or without a site.
    package var sites: Set<SiteName>?

    package init(sites: Set<SiteName>?) { self.sites = sites }

    package static let everySite = SiteFilter(sites: nil)

    /// Whether a device of `site` is visible.
    package func shows(_ site: String?) -> Bool {
        guard let sites else { return true }
        return sites.contains { $0.matches(site) }
    }

    /// A condition on a table's `site_key` column, where each row keeps its site's
    /// ``SiteName/key`` (`column` names it, such as `d.site_key`): `TRUE` for every site,
    /// `FALSE` for none.
    package func condition(_ column: String = "site_key") -> SQLQueryString {
        guard let sites else { return "1 = 1" }
        guard !sites.isEmpty else { return "1 = 0" }
        let list = SQLList(sites.map(\.key).sorted().map { SQLBind($0) })
        return "\(unsafeRaw: column) IN \(SQLGroupExpression(list))"
    }
}

extension QueryBuilder where Model == Device {
    /// Only the devices `sites` shows.
    package func visible(to sites: SiteFilter) -> Self {
        guard let names = sites.sites else { return self }
        return filter(\.$siteKey ~~ names.map(\.key))
    }
}
