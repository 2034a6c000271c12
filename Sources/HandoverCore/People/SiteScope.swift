import Foundation

/// Where a role holds: every site, or the named ones (a ward, a hospital).
package enum SiteScope: Hashable, Sendable {
    case allSites
    /// Site names as configured (`ICU`, `Ward 7`), compared ignoring case.
    case sites(Set<SiteName>)

    /// Whether `site` (a device's, as stored) is inside this scope; a device without a site is
    /// inside only `allSites`.
    package func contains(_ site: String?) -> Bool {
        switch self {
        case .allSites: true
        case .sites(let names): names.contains { $0.matches(site) }
        }
    }

    /// Sites as the settings and stored grants write them: as written, sorted, `+` between.
    package static func text(of sites: Set<SiteName>) -> String {
        sites.map(\.text).sorted().joined(separator: "+")
    }
}
