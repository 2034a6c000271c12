import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// The apps page, rendered from plain values.
@Suite struct AppsPageTests {
    static func viewer(_ grants: String) -> DashboardViewer {
        .fixture(grants)
    }

    static func app(_ name: String) -> RegisteredApp {
        let app = RegisteredApp()
        app.id = UUID()
        app.name = name
        app.role = .target
        app.appIDs = ["ABCDE12345.com.example.mail"]
        app.logoutMethod = .xCallback
        app.allowedCallbackHosts = []
        app.deadlineSeconds = 20
        app.maxReissues = 2
        return app
    }

    @Test func anAdminMayChangeAndRegisterAViewerNot() {
        let apps = [Self.app("<script>mail</script>")]
        let admin = AppsPage.body(apps, appleFile: nil, viewer: Self.viewer("admin"), error: "bad").rendered
        #expect(admin.contains("Registered apps (1)"))
        #expect(admin.contains("&lt;script&gt;mail&lt;/script&gt;"))
        #expect(!admin.contains("<script>mail"))
        #expect(admin.contains("/edit\">change</a>"))
        #expect(admin.contains("<h2>Register an app</h2>"))
        #expect(admin.contains("<p class=\"error\" id=\"form-error\">bad</p>"))
        #expect(admin.contains("x-callback: a tap"))
        #expect(admin.contains("20 s × 3"))
        let viewer = AppsPage.body(apps, appleFile: nil, viewer: Self.viewer("viewer"), error: nil).rendered
        #expect(!viewer.contains("Register an app"))
        #expect(!viewer.contains(">change</a>"))
    }

    @Test func thePreviewShowsTheFileOrWhyNone() {
        #expect(AppsPage.preview(nil).rendered.contains("so the file is empty and not served (404)"))
        let file = Data(#"{"applinks":{"details":[]}}"#.utf8)
        let html = AppsPage.preview(file).rendered
        #expect(html.contains("<pre id=\"aasa\">"))
        #expect(html.contains("&quot;applinks&quot;"))
    }

    @Test func internationalisedCallbackHostsShowBothForms() {
        #expect(AppsPage.callbackHostsText([]) == "—")
        #expect(AppsPage.callbackHostsText(["example.com"]) == "example.com")
        #expect(AppsPage.callbackHostsText(["xn--bcher-kva.example"]) == "xn--bcher-kva.example (bücher.example)")
    }
}
