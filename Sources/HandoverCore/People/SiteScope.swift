import Foundation

/// Where a role holds: every site, or the named ones (a ward, a hospital).
package enum SiteScope: Hashable, Sendable {
    case allSites
    /// Site names as configured (`ICU`, `Ward-3`), compared exactly.
    case sites(Set<String>)

    /// Whether `site` is inside this scope; a device without a site is inside only `allSites`.
    package func contains(_ site: String?) -> Bool {
        switch self {
        case .allSites: true
        case .sites(let names): site.map(names.contains) ?? false
        }
    }
}
