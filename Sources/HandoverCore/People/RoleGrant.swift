import Foundation

/// One role, at all sites or at named ones: what a claim value grants, or a key carries.
package struct RoleGrant: Hashable, Sendable {
    package var role: AdminRole
    package var scope: SiteScope

    package init(role: AdminRole, scope: SiteScope = .allSites) {
        self.role = role
        self.scope = scope
    }
}

/// Everything a person was granted, from every claim value that maps to a role. A grant
/// allows an action at a site when its role includes the one needed and its scope holds the site.
package struct Permissions: Hashable, Sendable {
    package var grants: Set<RoleGrant>

    package init(_ grants: Set<RoleGrant>) { self.grants = grants }

    /// No grant at all: such a person is refused at sign-in.
    package var isEmpty: Bool { grants.isEmpty }

    /// Whether `role`'s actions are allowed at `site` (nil: an action on no device, such as the
    /// registry, which needs the role at all sites).
    package func allows(_ role: AdminRole, at site: String?) -> Bool {
        grants.contains { grant in
            grant.role.includes(role) && (site == nil ? grant.scope == .allSites : grant.scope.contains(site))
        }
    }

    /// Whether everything `other` allows, this allows too: a person whose grants no longer
    /// include their previous ones lost a role, and their sessions opened with the old grants end.
    package func includes(_ other: Permissions) -> Bool {
        other.grants.allSatisfy { grant in
            switch grant.scope {
            case .allSites: allows(grant.role, at: nil)
            case .sites(let sites): sites.allSatisfy { allows(grant.role, at: $0.text) }
            }
        }
    }

    /// The sites whose devices this person sees: nil for every site.
    package var visibleSites: Set<SiteName>? {
        var names: Set<SiteName> = []
        for grant in grants {
            switch grant.scope {
            case .allSites: return nil
            case .sites(let sites): names.formUnion(sites)
            }
        }
        return names
    }
}

extension Permissions {
    /// The grants as stored with a session or a person: comma-separated `role` or
    /// `role@SITE+SITE`, sorted (`admin,operator@ICU`). Empty text is no grant.
    package var text: String {
        grants.map { grant in
            switch grant.scope {
            case .allSites: grant.role.rawValue
            case .sites(let sites): "\(grant.role.rawValue)@\(SiteScope.text(of: sites))"
            }
        }.sorted().joined(separator: ",")
    }

    /// Reads ``text``; throws on any entry that is not `role` or `role@SITE+SITE`.
    package init(text: String) throws {
        guard !text.isEmpty else { self.init([]); return }
        let map = try RoleMap(parsing: text.split(separator: ",", omittingEmptySubsequences: false).map { "g=\($0)" }.joined(separator: ","))
        self.init(map.grants["g"] ?? [])
    }

    /// The grants in words (`admin, operator@ICU`), or `no role`: what pages and refusals show.
    package var summary: String { grants.isEmpty ? "no role" : text.replacingOccurrences(of: ",", with: ", ") }
}
