import Foundation
@testable import HandoverCore
import PropertyBased
import SCIM
import Testing

/// What a change to a provisioned person means (``DirectoryRules``), as values: no database.
@Suite struct DirectoryRulesTests {
    static let roleMap = try! RoleMap(parsing: "icu-nurses=operator@ICU,8aa1a0c0=viewer,it=admin")

    static func state(_ active: Bool, _ groups: [String] = []) -> DirectoryRules.State {
        DirectoryRules.State(active: active, login: "ada@hospital.example", groupValues: groups)
    }

    @Test func deactivatingDeprovisionsAndReactivatingStartsFresh() {
        let off = DirectoryRules.decide(before: Self.state(true, ["icu-nurses"]), after: Self.state(false, ["icu-nurses"]), roleMap: Self.roleMap)
        #expect(off.deprovision && !off.reactivate && off.grants.isEmpty && off.grantsNarrowed)
        let on = DirectoryRules.decide(before: Self.state(false, ["icu-nurses"]), after: Self.state(true, ["icu-nurses"]), roleMap: Self.roleMap)
        #expect(!on.deprovision && on.reactivate && on.grants.text == "operator@ICU" && !on.grantsNarrowed)
        let deleted = DirectoryRules.decide(before: Self.state(true), after: nil, roleMap: Self.roleMap)
        #expect(deleted.deprovision)
        let deletedInactive = DirectoryRules.decide(before: Self.state(false), after: nil, roleMap: Self.roleMap)
        #expect(!deletedInactive.deprovision, "an inactive person was deprovisioned already")
        let created = DirectoryRules.decide(before: nil, after: Self.state(true), roleMap: Self.roleMap)
        #expect(!created.deprovision && !created.reactivate)
    }

    @Test func groupsGrantThroughTheRoleMapAndNoneWithoutOne() {
        #expect(DirectoryRules.grants(for: Self.state(true, ["8aa1a0c0", "unmapped"]), roleMap: Self.roleMap).text == "viewer")
        #expect(DirectoryRules.grants(for: Self.state(true, ["it"]), roleMap: nil).isEmpty)
        let narrowed = DirectoryRules.decide(before: Self.state(true, ["it"]), after: Self.state(true, ["8aa1a0c0"]), roleMap: Self.roleMap)
        #expect(narrowed.grantsNarrowed && !narrowed.deprovision)
        let widened = DirectoryRules.decide(before: Self.state(true, ["8aa1a0c0"]), after: Self.state(true, ["8aa1a0c0", "it"]), roleMap: Self.roleMap)
        #expect(!widened.grantsNarrowed)
    }

    @Test func theLoginIsThePrimaryEmailThenTheWorkOneThenAnEmailUserName() throws {
        func user(_ json: String) throws -> SCIMValue { try JSONDecoder().decode(SCIMValue.self, from: Data(json.utf8)) }
        #expect(DirectoryRules.login(of: try user(#"{"userName":"x","emails":[{"value":"home@x.org","type":"home"},{"value":"Ada@Hospital.example","primary":true}]}"#)) == "ada@hospital.example")
        #expect(DirectoryRules.login(of: try user(#"{"userName":"x","emails":[{"value":"home@x.org","type":"home"},{"value":"work@x.org","type":"work"}]}"#)) == "work@x.org")
        #expect(DirectoryRules.login(of: try user(#"{"userName":"Nurse@Hospital.example"}"#)) == "nurse@hospital.example")
        #expect(DirectoryRules.login(of: try user(#"{"userName":"nurse7"}"#)) == nil)
    }

    @Test func aBadgeNamesOneActivePersonOrIsRefused() {
        #expect(DirectoryRules.holder(of: []) == .unknown)
        #expect(DirectoryRules.holder(of: [(true, "a@x.org")]) == .person(login: "a@x.org"))
        #expect(DirectoryRules.holder(of: [(false, "a@x.org")]) == .deprovisioned)
        #expect(DirectoryRules.holder(of: [(false, "a@x.org"), (true, "b@x.org")]) == .person(login: "b@x.org"), "a badge passed on to a new person")
        #expect(DirectoryRules.holder(of: [(true, "a@x.org"), (true, "b@x.org")]) == .ambiguous)
        #expect(DirectoryRules.holder(of: [(true, nil)]) == .noLogin)
    }

    /// Any sequence of changes: a person is deprovisioned exactly when they go from active to not
    /// (or are deleted while active), and holds grants only while active.
    @Test func deprovisioningFollowsActiveExactly() async {
        let steps = Gen<Int>.int(in: 0...7).array(of: 1...20)
        let groups = ["icu-nurses", "8aa1a0c0", "it"]
        await propertyCheck(count: 300, input: steps) { steps in
            var current: DirectoryRules.State? = nil
            for step in steps {
                let next: DirectoryRules.State? = step == 7 ? nil : Self.state(step % 2 == 0, Array(groups.prefix(step % 4)))
                let effects = DirectoryRules.decide(before: current, after: next, roleMap: Self.roleMap)
                #expect(effects.deprovision == ((current?.active ?? false) && !(next?.active ?? false)))
                #expect((next?.active ?? false) || effects.grants.isEmpty)
                current = next
            }
        }
    }
}
