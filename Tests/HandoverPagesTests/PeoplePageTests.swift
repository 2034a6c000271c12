import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// The People page from plain values: a row per person with their roles form, a refusal beside
/// the right person, escaped names, the history, and the empty list's sentence.
@Suite struct PeoplePageTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func viewer() -> DashboardViewer {
        .fixture("admin")
    }

    static func person(_ name: String) -> Person {
        let person = Person()
        person.id = UUID()
        person.name = name
        person.email = "\(name.count)@example.com"
        person.subject = "sub-\(name.count)"
        person.grants = "operator"
        person.localGrants = "viewer@ICU"
        person.lastSignInAt = now
        return person
    }

    @Test func eachPersonHasARowAndARolesFormAndARefusalGoesBesideTheRightOne() throws {
        let hostile = Self.person("<script>x</script>"), grace = Self.person("Grace")
        let hostileID = try #require(hostile.id).uuidString.lowercased(), graceID = try #require(grace.id).uuidString.lowercased()
        let events = [AdminEvent(at: Self.now, kind: .rolesChanged, who: "Ada", detail: "gave Grace admin")]
        let html = PeoplePage.body(people: [hostile, grace], events: events, directory: [], providerConfigured: true, provisioningOn: false,
                                   viewer: Self.viewer(), error: (person: try #require(grace.id), reason: "roles: 'boss' is not a role")).rendered
        #expect(html.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("id=\"person-\(hostileID)\""))
        #expect(html.contains("action=\"/dashboard/people/\(graceID)/roles\""))
        #expect(html.contains("value=\"viewer@ICU\""))
        #expect(html.components(separatedBy: "roles: &#39;boss&#39; is not a role").count == 2, "the refusal shows once")
        let refusal = try #require(html.range(of: "is not a role"))
        let graceRow = try #require(html.range(of: "person-\(graceID)"))
        #expect(refusal.lowerBound > graceRow.lowerBound, "the refusal is in Grace's row")
        #expect(html.contains("<td>roles changed</td>"))
        #expect(html.contains("gave Grace admin"))
    }

    @Test func anEmptyListSaysWhetherAProviderIsConfigured() {
        let withProvider = PeoplePage.body(people: [], events: [], directory: [], providerConfigured: true, provisioningOn: false,
                                           viewer: Self.viewer(), error: nil).rendered
        #expect(withProvider.contains("Nobody has signed in through the identity provider yet."))
        let without = PeoplePage.body(people: [], events: [], directory: [], providerConfigured: false, provisioningOn: false,
                                      viewer: Self.viewer(), error: nil).rendered
        #expect(without.contains("No identity provider is configured: the dashboard opens with admin keys."))
    }
}
