import Foundation

/// Which values of the identity provider's role claim grant which role, at which sites: the
/// `HANDOVER_ADMIN_ROLE_MAP` setting (issue 39).
///
/// The text is a comma-separated list of `claim-value=role` or `claim-value=role@SITE+SITE`:
///
/// ```
/// handover-admins=admin,icu-leads=operator@ICU,night-desk=viewer@ICU+Ward-3
/// ```
///
/// - A claim value is any text without `,` or `=` (a group name or an Entra ID group's object
///   id); spaces around it are dropped.
/// - The role is `viewer`, `operator` or `admin`.
/// - A site is a ``SiteName`` (`Ward 7`, compared ignoring case); without `@`, the role holds at
///   every site.
/// - A claim value may appear more than once; its grants add up.
package struct RoleMap: Hashable, Sendable {
    /// The accepted form, as every refusal names it.
    package static let acceptedForm = "a comma-separated list of claim-value=role or claim-value=role@SITE+SITE, "
        + "where role is viewer, operator or admin (for example handover-admins=admin,icu-leads=operator@ICU)"

    package private(set) var grants: [String: Set<RoleGrant>]

    package init(grants: [String: Set<RoleGrant>]) { self.grants = grants }

    /// Reads the setting; throws a ``RoleMapError`` naming the entry at fault.
    package init(parsing text: String) throws {
        var grants: [String: Set<RoleGrant>] = [:]
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
        for (index, rawEntry) in entries.enumerated() {
            let entry = rawEntry.trimmingCharacters(in: .whitespaces)
            func refuse(_ problem: String) -> RoleMapError { RoleMapError(entry: index + 1, text: entry, problem: problem) }
            guard !entry.isEmpty else { throw refuse("is empty (two commas in a row, or one at an end)") }
            let sides = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard sides.count == 2 else {
                throw refuse(sides.count == 1 ? "has no '=' between the claim value and the role" : "has more than one '='")
            }
            let value = sides[0].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { throw refuse("has no claim value before '='") }
            guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw refuse("has a control character in its claim value")
            }
            let grantText = sides[1].trimmingCharacters(in: .whitespaces)
            let parts = grantText.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw refuse("has more than one '@'") }
            guard let role = AdminRole(rawValue: String(parts[0])) else {
                throw refuse("names the role '\(parts[0])'; a role is viewer, operator or admin")
            }
            var scope = SiteScope.allSites
            if parts.count == 2 {
                var sites: Set<SiteName> = []
                for site in parts[1].split(separator: "+", omittingEmptySubsequences: false) {
                    do throws(SiteNameError) {
                        sites.insert(try SiteName(site))
                    } catch {
                        throw refuse(site.trimmingCharacters(in: .whitespaces).isEmpty ? "has an empty site name"
                                     : "names the site '\(site.prefix(80))', which \(error.problem); a site name is \(SiteName.acceptedForm)")
                    }
                }
                scope = .sites(sites)
            }
            grants[value, default: []].insert(RoleGrant(role: role, scope: scope))
        }
        self.grants = grants
    }

    /// What a person with these claim values is granted (empty: no role, refused).
    package func permissions(for claimValues: [String]) -> Permissions {
        Permissions(claimValues.reduce(into: Set<RoleGrant>()) { $0.formUnion(grants[$1] ?? []) })
    }

    /// The setting's text for this map, entries sorted: reading it gives this map again.
    package var text: String {
        grants.keys.sorted().flatMap { value in
            grants[value, default: []].map { grant -> String in
                switch grant.scope {
                case .allSites: "\(value)=\(grant.role.rawValue)"
                case .sites(let sites): "\(value)=\(grant.role.rawValue)@\(SiteScope.text(of: sites))"
                }
            }.sorted()
        }.joined(separator: ",")
    }
}

/// A `HANDOVER_ADMIN_ROLE_MAP` entry that cannot be read: which one, what was wrong, and the
/// accepted form.
package struct RoleMapError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The entry's position, from 1.
    package var entry: Int
    /// The entry as written.
    package var text: String
    package var problem: String

    package var description: String {
        "HANDOVER_ADMIN_ROLE_MAP: entry \(entry) ('\(text.prefix(80))') \(problem). Accepted: \(RoleMap.acceptedForm)."
    }
}
