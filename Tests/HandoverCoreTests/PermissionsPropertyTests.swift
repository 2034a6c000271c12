import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// Who may do what, where, over roles × sites × actions (issue 65): random grants, each asked
/// about every role at every site of a small world and at no site (the registry, keys, webhooks).
@Suite struct PermissionsPropertyTests {
    static let world = ["ICU", "ER", "Ward 7", "Maternity"]
    static let role = Gen<AdminRole?>.element(of: AdminRole.allCases).compactMap { $0 }
    /// A scope: every site, or one to three of the world's (written in any case).
    static let scope = Gen<Int>.int(in: 0...15).map { bits -> SiteScope in
        let names = world.enumerated().filter { bits & (1 << $0.offset) != 0 }.map { $0.offset.isMultiple(of: 2) ? $0.element.lowercased() : $0.element }
        return names.isEmpty ? .allSites : .sites(Set(names.compactMap { try? SiteName($0) }))
    }
    static let grants = zip(role, scope).map { RoleGrant(role: $0, scope: $1) }.array(of: 0...4).map { Permissions(Set($0)) }

    /// The rule, written out: a grant allows an action when its role includes the one needed
    /// and its scope holds the device's site; an action on no device needs every site.
    static func expected(_ permissions: Permissions, _ role: AdminRole, _ site: String?) -> Bool {
        permissions.grants.contains { grant in
            guard grant.role >= role else { return false }
            switch grant.scope {
            case .allSites: return true
            case .sites(let names): return site.map { site in names.contains { $0.text.lowercased() == site.lowercased() } } ?? false
            }
        }
    }

    @Test func anActionIsAllowedExactlyWhereAGrantReaches() async {
        await propertyCheck(count: 400, input: Self.grants) { permissions in
            for role in AdminRole.allCases {
                for site in Self.world.map(Optional.some) + [nil, "Elsewhere"] {
                    let allowed = permissions.allows(role, at: site)
                    #expect(allowed == Self.expected(permissions, role, site), "\(permissions.text) \(role) at \(site ?? "no site")")
                    // A higher role may do what a lower one may; every site includes each site.
                    for lower in AdminRole.allCases where lower < role { #expect(!allowed || permissions.allows(lower, at: site)) }
                    if permissions.allows(role, at: nil) { #expect(allowed, "every site includes \(site ?? "none")") }
                }
            }
            #expect(permissions.includes(permissions), "grants include themselves")
            #expect(permissions.includes(Permissions([])))
            #expect((try? Permissions(text: permissions.text)) == permissions, "stored as text and read back")
            if let visible = permissions.visibleSites {
                for site in Self.world {
                    let sees = visible.contains { $0.text.lowercased() == site.lowercased() }
                    #expect(sees == permissions.allows(.viewer, at: site), "sees \(site) exactly where it may view")
                }
            } else {
                #expect(permissions.allows(.viewer, at: nil))
            }
        }
    }

    /// A person whose new grants do not include the old lost something: `includes` is false
    /// exactly when some role at some site (or at every site) was allowed before and is not now.
    @Test func losingARoleAnywhereIsNoticed() async {
        await propertyCheck(count: 400, input: Self.grants, Self.grants) { before, after in
            let lost = AdminRole.allCases.contains { role in
                (Self.world.map(Optional.some) + [nil]).contains { before.allows(role, at: $0) && !after.allows(role, at: $0) }
            }
            #expect(after.includes(before) == !lost, "\(before.text) → \(after.text)")
        }
    }
}
