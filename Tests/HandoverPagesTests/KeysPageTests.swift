import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// The Keys page from plain values: a row per key, escaped names, a revoke form for each live
/// key but the viewer's own, the form's values kept after a refusal, and a new key shown once.
@Suite struct KeysPageTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func viewer(apiKeyID: UUID? = nil) -> DashboardViewer {
        let viewer = DashboardViewer.fixture()
        viewer.session.apiKeyID = apiKeyID
        return viewer
    }

    static func key(_ name: String, revokedAt: Date? = nil, expiresAt: Date? = nil) -> APIKey {
        let key = APIKey()
        key.id = UUID()
        key.name = name
        key.scope = "operator"
        key.keyPrefix = "hk_abcd"
        key.createdAt = now.addingTimeInterval(-86_400)
        key.revokedAt = revokedAt
        key.expiresAt = expiresAt
        return key
    }

    @Test func eachLiveKeyButTheViewersOwnCanBeRevoked() throws {
        let live = Self.key("<script>wall</script>"), revoked = Self.key("old", revokedAt: Self.now), own = Self.key("mine")
        let expired = Self.key("lapsed", expiresAt: Self.now.addingTimeInterval(-60))
        let liveID = try #require(live.id).uuidString.lowercased(), ownID = try #require(own.id).uuidString.lowercased()
        let html = KeysPage.list([live, revoked, own, expired], now: Self.now, viewer: Self.viewer(apiKeyID: own.id),
                                 values: .init(), error: nil).rendered
        #expect(html.contains("&lt;script&gt;wall&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("/dashboard/keys/\(liveID)/revoke"))
        #expect(!html.contains("/dashboard/keys/\(ownID)/revoke"))
        #expect(html.contains("<td>this session&#39;s key</td>"))
        #expect(html.contains("revoked "))
        #expect(html.contains(" (expired)"))
        #expect(html.components(separatedBy: "<tr>").count - 1 == 5, "a header and a row per key")
    }

    @Test func aRefusedFormKeepsItsValuesAndSaysWhy() {
        let values = KeysPage.FormValues(name: "ward \"7\"", role: "admin", expiresIn: "90x", site: "ICU")
        let html = KeysPage.form(values, error: "expiresIn: '90x' is not a lifetime", csrf: "t").rendered
        #expect(html.contains("id=\"form-error\""))
        #expect(html.contains("value=\"ward &quot;7&quot;\""))
        #expect(html.contains("<option value=\"admin\" selected>"))
        #expect(html.contains("value=\"90x\""))
        #expect(html.contains("name=\"csrf\" value=\"t\""))
    }

    @Test func aNewKeyIsShownOnceWithItsScope() {
        let row = Self.key("wall screen")
        row.site = "Ward 7"
        let html = KeysPage.created(row, key: "hk_secret").rendered
        #expect(html.contains("<code id=\"new-key\">hk_secret</code>"))
        #expect(html.contains(" at Ward 7 only (it opens the dashboard, not the API)"))
        #expect(html.contains(", working until it is revoked"))
    }
}
