import Foundation
import HandoverServer
import Testing

/// A person who opens the server's root URL in a browser lands on a page that leads on.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct HomePageTests {
    @Test func theRootIsAPageThatLeadsToTheDashboardAndTheTester() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.GET, "/", headers: [("Accept", "text/html")])
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
            for link in ["/dashboard/sign-in", "/tester", "/openapi.yaml"] {
                #expect(reply.text.contains("href=\"\(link)\""), "\(link) in \(reply.text)")
            }
            #expect(!reply.text.contains("openid-configuration"), "no discovery link without an issuer URL")
            let signIn = try await test.request(.GET, "/dashboard/sign-in")
            #expect(signIn.status == 200, "the first link leads somewhere")
        }
    }
}
