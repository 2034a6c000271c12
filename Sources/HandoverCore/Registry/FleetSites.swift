import Foundation

/// The sites the fleet's devices are at, for `handover config check`: a lending period for a site
/// no device has can never apply, and is most likely a misspelling of one that does (issue 66).
///
/// ``all(on:)``, which reads them, is in ``RegistryStore``'s file.
public enum FleetSites {
    /// The sites of `periods` that no device has, as written in the setting, in its order.
    public static func unknown(_ periods: [SiteName], among sites: [String: String]) -> [SiteName] {
        periods.filter { sites[$0.key] == nil }
    }
}
