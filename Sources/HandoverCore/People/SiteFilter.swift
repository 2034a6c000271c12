import Foundation

/// Which devices a person may see: every site (`nil` sites), or the named ones. Built from a
/// session's ``Permissions/visibleSites``; every list, count, search, scorecard, run view and
/// history of the dashboard goes through one, and a device outside it answers 404. The stores
/// read it as an SQL condition (``condition(_:)``, with the people's statements in ``PeopleStore``).
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
}
