import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// The page that changes an app, from plain values: a target's logout method and action, a
/// launcher without them, the refusal above the form, and escaped names.
@Suite struct AppFormTests {
    static func viewer() -> DashboardViewer {
        .fixture("admin")
    }

    static func app(_ role: AppRole) -> RegisteredApp {
        let app = RegisteredApp()
        app.id = UUID()
        app.name = "<script>Epic</script>"
        app.role = role
        app.logoutMethod = .xCallback
        app.logoutAction = "logout"
        app.deadlineSeconds = 20
        app.maxReissues = 2
        app.backchannelLogoutURI = "https://epic.example.com/bcl"
        app.backchannelLogoutSessionRequired = true
        return app
    }

    @Test func aTargetOffersItsLogoutMethodWithItsOwnChosen() {
        let html = AppForm.body(Self.app(.target), id: "abc", viewer: Self.viewer(), error: "deadlineSeconds: 'x' is not a whole number").rendered
        #expect(html.contains("<option value=\"x-callback\" selected>x-callback</option>"))
        #expect(html.contains("<option value=\"ulc\">ulc</option>"))
        #expect(html.contains("name=\"logoutAction\" value=\"logout\""))
        #expect(html.contains("name=\"deadlineSeconds\" value=\"20\""))
        #expect(html.contains("name=\"backchannelLogoutSessionRequired\" value=\"1\" checked>"))
        #expect(html.contains("<p class=\"error\" id=\"error\">deadlineSeconds: &#39;x&#39; is not a whole number</p>"))
        #expect(html.contains("action=\"/dashboard/apps/abc/edit\""))
        #expect(html.contains("Remove &lt;script&gt;Epic&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
    }

    @Test func aLauncherHasNoLogoutMethod() {
        let html = AppForm.body(Self.app(.launcher), id: "abc", viewer: Self.viewer(), error: nil).rendered
        #expect(!html.contains("name=\"logoutMethod\""))
        #expect(!html.contains("name=\"logoutAction\""))
        #expect(!html.contains("class=\"error\""))
    }
}
