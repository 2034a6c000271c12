import Foundation
@testable import HandoverServer
import SQLKit
import Testing

/// Issue 63, finding 5: the audit log records facts, not input. A refusal of a request nobody
/// authenticated (a forged logout token, a sign-in callback a cross-site `<img>` sends) is not one
/// entry per request: per address and 10-minute window the first is recorded and the others are
/// counted into one summary entry; and no entry holds more than a few hundred bytes of what a
/// stranger sent (a 150 KB `kid` once made a 150 KB leaf, and 40 requests added 20.6 MB).
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct StrangerRefusalAuditTests {
    /// The audit log's entries from `start` on: each leaf's size in bytes and its decoded entry.
    static func entries(_ test: TestServer, from start: Int) async throws -> [(bytes: Int, entry: [String: Any])] {
        let reply = try await test.request(.GET, "/api/v1/audit/entries?start=\(start)", key: test.adminKey)
        return (reply.json["entries"] as? [[String: Any]] ?? []).map { entry in
            ((entry["leaf"] as? String).flatMap { Data(base64Encoded: $0) }?.count ?? -1, entry["entry"] as? [String: Any] ?? [:])
        }
    }

    static func treeSize(_ test: TestServer) async throws -> Int {
        try await test.request(.GET, "/api/v1/audit/entries?start=0&end=0", key: test.adminKey).json["treeSize"] as? Int ?? -1
    }

    /// The People page's rows: how many, and the longest `who` and `detail`.
    static func adminEvents(_ test: TestServer) async throws -> (count: Int, longest: Int) {
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        let row = try await sql.raw("SELECT COUNT(*) AS n, COALESCE(MAX(LENGTH(who) + LENGTH(detail)), 0) AS longest FROM admin_events").first()
        return (try row?.decode(column: "n", as: Int.self) ?? -1, try row?.decode(column: "longest", as: Int.self) ?? -1)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A logout token whose JOSE header carries `header` (unsigned: it is refused before any signature is checked).
    static func logoutToken(header: [String: Any]) throws -> String {
        let claims: [String: Any] = ["iss": "https://idp.example", "sub": "ada", "events": ["http://schemas.openid.net/event/backchannel-logout": [:]]]
        return try base64URL(JSONSerialization.data(withJSONObject: header)) + "." + base64URL(JSONSerialization.data(withJSONObject: claims)) + ".c2ln"
    }

    static func postLogout(_ test: TestServer, _ token: String) async throws -> TestServer.Reply {
        try await test.request(.POST, "/dashboard/backchannel-logout", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                               body: "logout_token=" + token)
    }

    /// A 150 KB `typ`, and with the provider reachable a 150 KB `kid`: the entry and the answer
    /// hold a bounded prefix, its length and its hash.
    @Test func aLogoutTokenWithA150KBHeaderFieldLeavesABoundedEntry() async throws {
        let provider: IdentityProviderPeer? = await IdentityProviderPeer.isAvailable() ? try await IdentityProviderPeer.start() : nil
        defer { provider?.stop() }
        try await UnauthenticatedRouteLimitTests.withProvider(provider?.issuer ?? "http://127.0.0.1:9") { test in
            let huge = String(repeating: "A", count: 150 * 1024)
            var headers: [[String: Any]] = [["alg": "RS256", "typ": huge]]
            if provider != nil { headers.append(["alg": "RS256", "typ": "logout+jwt", "kid": huge]) }
            for header in headers {
                let before = try await Self.treeSize(test)
                let reply = try await Self.postLogout(test, try Self.logoutToken(header: header))
                #expect(reply.status == 400 && reply.body.count < 2_000, "\(reply.status), \(reply.body.count) bytes")
                let added = try await Self.entries(test, from: before)
                #expect(added.count == 1, "\(added.count) entries")
                for (bytes, entry) in added {
                    #expect(bytes < 1_500, "\(bytes) bytes: \(String(describing: entry).prefix(300))")
                    #expect(String(describing: entry).contains("153600 bytes"), "the entry names the field's length: \(String(describing: entry).prefix(600))")
                }
                // A minute later (a new window's first refusal is recorded), the other field.
                test.clock.advance(by: 11 * 60)
            }
            #expect(try await Self.adminEvents(test).longest < 1_500)
        }
    }

    /// 40 refused logout tokens of 150 KB from one address (the red team's 20.6 MB in 4.6 s): one
    /// entry while the window lasts, one summary when it has closed, each bounded.
    @Test func fortyRefusedLogoutTokensLeaveTwoBoundedEntries() async throws {
        try await UnauthenticatedRouteLimitTests.withProvider("http://127.0.0.1:9") { test in
            let before = try await Self.treeSize(test)
            let junk = String(repeating: "B", count: 150 * 1024)
            for attempt in 1...40 {
                let reply = try await Self.postLogout(test, "\(attempt).\(junk).x")
                #expect(reply.status == 400 || reply.status == 429, "attempt \(attempt): \(reply.status)")
            }
            let during = try await Self.entries(test, from: before)
            #expect(during.count == 1 && during.allSatisfy { $0.bytes < 1_500 }, "\(during.map(\.bytes))")
            // The window closes; the next refusal (or the server's pass) writes the summary.
            test.clock.advance(by: 11 * 60)
            #expect(try await Self.postLogout(test, "later.x.y").status == 400)
            let after = try await Self.entries(test, from: before)
            #expect(after.count == 3 && after.allSatisfy { $0.bytes < 1_500 }, "\(after.map(\.bytes))")
            let summary = after.map { String(describing: $0.entry) }.first { $0.contains("39 more refusals from 127.0.0.1") }
            #expect(summary != nil, "\(after.map { String(describing: $0.entry).prefix(400) })")
            let people = try await Self.adminEvents(test)
            #expect(people.count == 3 && people.longest < 1_500, "\(people)")
        }
    }

    /// With no refusal after it, a closed window's summary is written by the server's pass (every
    /// minute; here asked for), and a stopping server writes the windows still open.
    @Test func theServersPassWritesAClosedWindowsSummary() async throws {
        try await UnauthenticatedRouteLimitTests.withProvider("http://127.0.0.1:9") { test in
            let before = try await Self.treeSize(test)
            for attempt in 1...5 {
                #expect(try await test.request(.GET, "/dashboard/sign-in/callback?state=x\(attempt)").status == 403)
            }
            #expect(try await test.server.writeRefusalSummaries() == 0, "the window is open")
            test.clock.advance(by: 10 * 60)
            #expect(try await test.server.writeRefusalSummaries() == 1)
            let added = try await Self.entries(test, from: before)
            #expect(added.count == 2, "\(added.count)")
            let summary = (added.last?.entry["detail"] as? [String: Any])?["detail"] as? String ?? ""
            #expect(summary.hasPrefix("4 more refusals from 127.0.0.1 from ")
                    && summary.hasSuffix(": 4 × the sign-in's state is not the one this browser started"), "\(summary)")
        }
    }

    /// `<img src="https://handover/dashboard/sign-in/callback?state=x">` on any page: the browser
    /// sends it without the state cookie. 40 of them: one entry.
    @Test func crossSiteImagesOfTheSignInCallbackLeaveOneEntry() async throws {
        try await UnauthenticatedRouteLimitTests.withProvider("http://127.0.0.1:9") { test in
            let before = try await Self.treeSize(test)
            let state = String(repeating: "s", count: 200)
            for attempt in 1...40 {
                let reply = try await test.request(.GET, "/dashboard/sign-in/callback?state=\(state)\(attempt)&code=c",
                                                   headers: [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Dest", "image")])
                #expect(reply.status == 403 || reply.status == 429, "attempt \(attempt): \(reply.status)")
            }
            let added = try await Self.entries(test, from: before)
            #expect(added.count == 1 && added.allSatisfy { $0.bytes < 1_000 }, "\(added.count) entries: \(added.map(\.bytes))")
            #expect(try await Self.adminEvents(test).count == 1)
        }
    }
}
