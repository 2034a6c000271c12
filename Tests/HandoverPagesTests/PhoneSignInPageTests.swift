import Foundation
import Testing
import HandoverPages

/// The pages of "sign in on this computer with your phone".
@Suite struct PhoneSignInPageTests {
    static let statuses = PhoneSignInPage.StatusNames(succeeded: "succeeded", cancelled: "cancelled", failed: "failed", expired: "expired")

    @Test func theApprovalPageShowsTheCodeTheLinkAndFollowsTheOperation() {
        let html = PhoneSignInPage.approval(id: "abc", code: 42, pushDelivered: true, qrSVG: "<svg></svg>",
                                            link: "https://example.com/oob/open#x", status: "pending", statuses: Self.statuses).html
        #expect(html.contains(">42</p>"))
        #expect(html.contains("A notification was sent to your phone."))
        #expect(html.contains(#"<div class="qr" style="width:16rem;max-width:100%"><svg></svg></div>"#))
        #expect(html.contains(#"<a id="link" href="https://example.com/oob/open#x">open the request</a>"#))
        #expect(html.contains(#"<p id="status" data-status="pending" aria-live="polite">"#))
        #expect(html.contains("new EventSource('/oob/sign-in/abc/events')"))
        #expect(html.contains("if(op.status==='succeeded')"))
        let noPush = PhoneSignInPage.approval(id: "abc", code: 7, pushDelivered: false, qrSVG: "", link: "l", status: "pending",
                                              statuses: Self.statuses).html
        #expect(noPush.contains("Scan this code with your phone&#39;s camera:"))
    }

    @Test func anEndedRequestOffersTheFormAgainWithTheNameEscaped() {
        let html = PhoneSignInPage.ended(status: "expired", user: "\"><script>").html
        #expect(html.contains("It is expired. Start again to sign in."))
        #expect(html.contains(#"value="&quot;&gt;&lt;script&gt;""#))
        #expect(!html.contains("<script>"))
    }

    @Test func theStartPagesOfferTheForm() {
        #expect(PhoneSignInPage.start.html.contains(#"<form method="post" action="/oob/sign-in">"#))
        #expect(PhoneSignInPage.invalidUser.paragraphs == ["Enter your user name (1 to 200 printable characters)."])
        #expect(!PhoneSignInPage.tooManyRequests(wait: 9).html.contains("<form"))
    }
}
