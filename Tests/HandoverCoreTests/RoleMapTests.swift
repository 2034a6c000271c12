import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// `HANDOVER_ADMIN_ROLE_MAP` (issue 39, item 1): `claim-value=role` or `claim-value=role@SITE+SITE`,
/// comma-separated; and what the grants allow.
@Suite struct RoleMapTests {
    @Test func theIssuesExampleReads() throws {
        let map = try RoleMap(parsing: "handover-admins=admin,icu-leads=operator@ICU")
        #expect(map.grants["handover-admins"] == [RoleGrant(role: .admin)])
        #expect(map.grants["icu-leads"] == [RoleGrant(role: .operator, scope: .sites([try SiteName("ICU")]))])
    }

    @Test func spacesAroundEntriesAndSeveralSitesAreRead() throws {
        let map = try RoleMap(parsing: " night desk = viewer@ICU+Ward-3 , 6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c=admin ")
        #expect(map.grants["night desk"] == [RoleGrant(role: .viewer, scope: .sites([try SiteName("ICU"), try SiteName("Ward-3")]))])
        #expect(map.grants["6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c"] == [RoleGrant(role: .admin)])
    }

    @Test(arguments: [
        ("", 1, "is empty"),
        ("a=admin,", 2, "is empty"),
        ("admins", 1, "has no '='"),
        ("a=b=admin", 1, "has more than one '='"),
        ("=admin", 1, "has no claim value"),
        ("a=root", 1, "names the role 'root'"),
        ("a=Admin", 1, "names the role 'Admin'"),
        ("a=operator@", 1, "has an empty site name"),
        ("a=operator@ICU+", 1, "has an empty site name"),
        ("a=operator@ICU@ER", 1, "has more than one '@'"),
        ("a=operator@ICU\t3", 1, "names the site 'ICU\t3'"),
        ("ok=viewer,a\u{7}b=admin", 2, "control character"),
    ])
    func aBadEntryIsNamedWithTheAcceptedForm(text: String, entry: Int, problem: String) {
        #expect {
            try RoleMap(parsing: text)
        } throws: { error in
            guard let refusal = error as? RoleMapError else { return false }
            return refusal.entry == entry && refusal.problem.contains(problem)
                && refusal.description.contains("HANDOVER_ADMIN_ROLE_MAP") && refusal.description.contains(RoleMap.acceptedForm)
        }
    }

    /// Before: `Ward 7` was refused ("names the site 'Ward 7'; a site name is letters, digits,
    /// '-', '_' and '.'"), though the registry's sites are named as hospitals write them.
    @Test func aSiteIsWrittenAsPeopleWriteItAndComparedIgnoringCase() throws {
        let person = try RoleMap(parsing: "night desk=viewer@ Ward 7 +Station Ä").permissions(for: ["night desk"])
        #expect(person.allows(.viewer, at: "Ward 7") && person.allows(.viewer, at: "WARD 7") && person.allows(.viewer, at: "station ä"))
        #expect(!person.allows(.viewer, at: "Ward 70") && !person.allows(.viewer, at: "ICU"))
        #expect(person.text == "viewer@Station Ä+Ward 7", "shown as written, trimmed")
    }

    @Test func grantsOfSeveralClaimValuesAddUp() throws {
        let map = try RoleMap(parsing: "staff=viewer,icu-leads=operator@ICU,icu-leads=viewer@ER")
        let person = map.permissions(for: ["staff", "icu-leads", "unmapped"])
        #expect(person.allows(.viewer, at: "Ward-3"))
        #expect(person.allows(.operator, at: "ICU"))
        #expect(!person.allows(.operator, at: "ER"))
        #expect(!person.allows(.operator, at: nil), "a fleet-wide action needs the role at every site")
        #expect(person.visibleSites == nil, "a viewer at every site sees every site")
        #expect(map.permissions(for: ["unmapped"]).isEmpty)
    }

    @Test func aSiteOperatorSeesOnlyItsSitesAndCannotTouchTheRegistry() throws {
        let person = try RoleMap(parsing: "icu-leads=operator@ICU").permissions(for: ["icu-leads"])
        #expect(person.visibleSites == [try SiteName("icu")], "compared ignoring case")
        #expect(person.allows(.viewer, at: "ICU") && !person.allows(.viewer, at: "ER"))
        #expect(!person.allows(.admin, at: nil) && !person.allows(.viewer, at: nil))
        #expect(!person.allows(.operator, at: nil as String?), "a device without a site is outside a named site's scope")
    }

    @Test func rolesIncludeTheOnesBelow() {
        #expect(AdminRole.admin.includes(.operator) && AdminRole.operator.includes(.viewer))
        #expect(!AdminRole.viewer.includes(.operator) && !AdminRole.operator.includes(.admin))
    }

    // MARK: Properties

    static let roles = Gen<AdminRole?>.element(of: AdminRole.allCases).compactMap { $0 }
    static let siteName = Gen<Character?>.element(of: Array("ICUERWard-_.0139")).compactMap { $0 }.string(of: 1...8)
    static let claimValue = Gen<Character?>.element(of: Array("abc XYZ-_./:@+é日0")).compactMap { $0 }.string(of: 1...20)
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    static let anyText = Gen<Character?>.element(of: Array("a=,@+ ICUadmin operator viewer\u{0}\n=é")).compactMap { $0 }.string(of: 0...60)

    /// Every map written as text reads back as the same map.
    @Test func aMapsTextReadsBackAsTheSameMap() async {
        let grant = zip(Self.claimValue, Self.roles, Self.siteName.array(of: 0...3))
        await propertyCheck(count: 300, input: grant.array(of: 1...5)) { entries in
            var grants: [String: Set<RoleGrant>] = [:]
            for (value, role, sites) in entries {
                let names = Set(sites.compactMap { try? SiteName($0) })
                grants[value, default: []].insert(RoleGrant(role: role, scope: names.isEmpty ? .allSites : .sites(names)))
            }
            let map = RoleMap(grants: grants)
            do {
                #expect(try RoleMap(parsing: map.text) == map, "\(map.text)")
            } catch {
                Issue.record("\(map.text): \(error)")
            }
        }
    }

    /// Any text is either read or refused with a RoleMapError; nothing else escapes.
    @Test func anyTextIsReadOrRefusedByName() async {
        await propertyCheck(count: 500, input: Self.anyText) { text in
            do {
                _ = try RoleMap(parsing: text)
            } catch let refusal as RoleMapError {
                #expect(refusal.entry >= 1 && refusal.entry <= text.split(separator: ",", omittingEmptySubsequences: false).count)
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }
}
