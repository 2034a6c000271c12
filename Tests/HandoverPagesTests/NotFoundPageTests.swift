import Foundation
import Testing
import HandoverPages

/// The dashboard's page for an address that leads nowhere.
@Suite struct NotFoundPageTests {
    @Test func aHostilePathIsEscapedAndCut() {
        let path = "/dashboard/<script>alert(1)</script>" + String(repeating: "x", count: 300)
        let html = NotFoundPage.page(path: path, reason: "No device with that id.").html
        #expect(html.contains("/dashboard/&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(!html.contains(String(repeating: "x", count: 200)), "the path is cut to 200 characters")
        #expect(html.contains("No device with that id."))
        #expect(html.contains(#"<a href="/dashboard/devices">search the devices</a>"#))
    }
}
