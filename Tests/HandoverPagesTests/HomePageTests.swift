import Foundation
import HandoverProtocol
import Testing
import HandoverPages

/// The server's home page, rendered from the server's settings as plain values.
@Suite struct HomePageTests {
    @Test func withoutAProviderPeopleSignInWithKeys() {
        #expect(HomePage.signInWords(hasProvider: false, allowsKeySignIn: true) == "sign in with an API key (admin, operator or viewer)")
        #expect(HomePage.signInWords(hasProvider: true, allowsKeySignIn: true).hasSuffix("; an admin key opens it too, as break-glass"))
        #expect(!HomePage.signInWords(hasProvider: true, allowsKeySignIn: false).contains("break-glass"))
    }

    @Test func theOpenIDLinkAndThePlainHTTPNoticeShowOnlyWhenTheyApply() {
        let plain = HomePage.page(signInWords: "keys", advertisesOpenID: false, plainHTTPNotice: nil).html
        #expect(!plain.contains("openid-configuration"))
        #expect(!plain.contains("plain-http"))
        #expect(plain.components(separatedBy: "<li>").count - 1 == 4)
        #expect(plain.contains("Handover \(HandoverVersion.current)"))
        let full = HomePage.page(signInWords: "keys", advertisesOpenID: true, plainHTTPNotice: "Devices reach <this> over http.").html
        #expect(full.contains(#"<a href="/.well-known/openid-configuration">OpenID Connect</a>"#))
        #expect(full.contains(#"<p id="plain-http" class="error" role="note">Devices reach &lt;this&gt; over http.</p>"#))
    }
}
