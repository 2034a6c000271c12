import Foundation
import HandoverSchema

extension DashboardSession {
    /// What this session may do; a session whose grants cannot be read may do nothing.
    package var permissions: Permissions { (try? Permissions(text: grants)) ?? Permissions([]) }

    /// The devices this session sees: every site, or the sites its grants name.
    package var siteFilter: SiteFilter { SiteFilter(sites: permissions.visibleSites) }

    /// Whether this session may do what needs `role`: seeing needs any grant (each list then
    /// shows only the sites granted); the registry, the tester, keys and people need `role` at
    /// every site (`everySite`), and a device's forms need it at some site, then at the device's
    /// own (``may(_:at:)``). The one rule for both sides of a form: its handler checks it and its
    /// page offers it only when it holds.
    package func may(_ role: AdminRole, everySite: Bool = true) -> Bool {
        let permissions = permissions
        if role == .viewer { return !permissions.isEmpty }
        return everySite ? permissions.allows(role, at: nil) : permissions.grants.contains { $0.role.includes(role) }
    }

    /// Whether this session may do what needs `role` at `site` (a device's site; nil: a device of
    /// no site, which needs the role at every site).
    package func may(_ role: AdminRole, at site: String?) -> Bool { permissions.allows(role, at: site) }
}
