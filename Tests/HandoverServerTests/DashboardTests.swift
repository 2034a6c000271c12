import AsyncHTTPClient
import Foundation
import HandoverServer
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Testing

/// A browser's view of the dashboard: a cookie jar and forms, over real HTTP.
final class DashboardBrowser: @unchecked Sendable {
    let test: TestServer
    private(set) var cookies: [String: String] = [:]
    /// Every `Set-Cookie` header seen, raw.
    private(set) var setCookies: [String] = []

    init(_ test: TestServer) { self.test = test }

    func get(_ path: String) async throws -> TestServer.Reply {
        try remember(try await test.request(.GET, path, headers: cookieHeader()))
    }

    /// Posts a form; `fields` are percent-encoded.
    func post(_ path: String, _ fields: [(String, String)]) async throws -> TestServer.Reply {
        let url = test.server.baseURL.absoluteString + path
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in cookieHeader() { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await test.client.execute(request, timeout: .seconds(30))
        let data = try await response.body.collect(upTo: 10 << 20)
        return try remember(TestServer.Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: data)))
    }

    /// The `csrf` hidden field of the page.
    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: #"name="csrf" value="([^"]+)""#, options: .regularExpression) else { return nil }
        let match = String(page[range])
        return match.components(separatedBy: "value=\"").last.map { String($0.dropLast()) }
    }

    /// Signs in with `key`; returns the session's CSRF token.
    func signIn(key: String) async throws -> String {
        let form = try await get("/dashboard/sign-in")
        let reply = try await post("/dashboard/sign-in", [("csrf", Self.csrf(in: form.text) ?? ""), ("key", key)])
        #expect(reply.status == 303, "\(reply.text)")
        let overview = try await get("/dashboard")
        #expect(overview.status == 200)
        return Self.csrf(in: overview.text) ?? ""
    }

    private func cookieHeader() -> [(String, String)] {
        cookies.isEmpty ? [] : [("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))]
    }

    private func remember(_ reply: TestServer.Reply) throws -> TestServer.Reply {
        for header in reply.headers[canonicalForm: "Set-Cookie"] {
            setCookies.append(String(header))
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]).trimmingCharacters(in: .whitespaces)
            let value = String(pair[1])
            if value.isEmpty || header.lowercased().contains("max-age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return reply
    }
}

/// Dashboard sign-in, cookies and CSRF, and the pages, over real HTTP.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct DashboardTests {
    @Test func signingInSetsAnHttpOnlySameSiteStrictSessionCookieWithoutSecureOnPlainHTTP() async throws {
        let test = try await TestServer.start(.sqlite)
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let session = try #require(browser.setCookies.first { $0.hasPrefix("handover_session=") })
        #expect(session.contains("HttpOnly"))
        #expect(session.contains("SameSite=Strict"))
        #expect(!session.contains("Secure"))
        #expect(session.contains("Path=/"))
        try await test.stop()
    }

    @Test func onAnHTTPSPublicURLTheCookiesAreSecure() async throws {
        let test = try await TestServer.start(.sqlite, publicURL: "https://handover.example.com")
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let session = try #require(browser.setCookies.first { $0.hasPrefix("handover_session=") })
        #expect(session.contains("Secure"))
        #expect(session.contains("HttpOnly"))
        try await test.stop()
    }

    @Test func signInRejectsAMissingOrWrongCSRFTokenAndAWrongKey() async throws {
        let test = try await TestServer.start(.sqlite)
        let browser = DashboardBrowser(test)
        let form = try await browser.get("/dashboard/sign-in")
        let token = try #require(DashboardBrowser.csrf(in: form.text))
        #expect(try await browser.post("/dashboard/sign-in", [("key", test.adminKey)]).status == 403)
        #expect(try await browser.post("/dashboard/sign-in", [("csrf", "forged"), ("key", test.adminKey)]).status == 403)
        let wrongKey = try await browser.post("/dashboard/sign-in", [("csrf", token), ("key", "hov_not_a_key")])
        #expect(wrongKey.status == 401)
        #expect(wrongKey.text.contains("not a valid admin, operator or viewer key"))
        // A device key is not an admin key.
        let device = try await test.registerDevice()
        let fresh = try await browser.get("/dashboard/sign-in")
        #expect(try await browser.post("/dashboard/sign-in", [("csrf", DashboardBrowser.csrf(in: fresh.text) ?? ""), ("key", device.key)]).status == 401)
        #expect(try await browser.get("/dashboard").status == 303)
        try await test.stop()
    }

    @Test func everyFormRejectsAMissingOrWrongCSRFToken() async throws {
        let test = try await TestServer.start(.sqlite)
        let browser = DashboardBrowser(test)
        let csrf = try await browser.signIn(key: test.adminKey)
        let forms: [(String, [(String, String)])] = [
            ("/dashboard/apps", [("name", "mail"), ("appIDs", "ABCDE12345.com.example.mail"), ("logoutAction", "https://mail.example.com/logout")]),
            ("/tester", [("action", "https://mail.example.com/logout")]),
            ("/tester/\(UUID().uuidString.lowercased())/rounds/1/start", []),
            ("/dashboard/sign-out", []),
        ]
        for (path, fields) in forms {
            #expect(try await browser.post(path, fields).status == 403, "\(path) without a token")
            #expect(try await browser.post(path, fields + [("csrf", "wrong")]).status == 403, "\(path) with a wrong token")
        }
        // Nothing was created, and the session is still signed in.
        #expect(try await test.request(.GET, "/api/v1/apps", key: test.adminKey).array.isEmpty)
        #expect(try await browser.get("/dashboard").status == 200)
        // With the token, signing out works and ends the session.
        #expect(try await browser.post("/dashboard/sign-out", [("csrf", csrf)]).status == 303)
        #expect(try await browser.get("/dashboard").status == 303)
        try await test.stop()
    }

    @Test func theOverviewShowsADeviceWhoseLastRunIsAlsoARecentRun() async throws {
        // Regression: the run appeared twice in a dictionary built with unique keys, and the page crashed.
        let test = try await TestServer.start(.sqlite)
        try await test.registerTarget("Mail")
        let device = try await test.registerDevice("ward-7-phone-3")
        let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key)
        #expect(run.status == 201, "\(run.text)")
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let overview = try await browser.get("/dashboard")
        #expect(overview.status == 200)
        #expect(overview.text.contains("ward-7-phone-3"))
        #expect(overview.text.contains("Mail"))
        #expect(overview.text.contains(#"data-live="/dashboard/live""#))
        try await test.stop()
    }

    @Test func registeringAnAppThroughTheFormShowsItAndItsAssociationFilePreview() async throws {
        let test = try await TestServer.start(.sqlite)
        let browser = DashboardBrowser(test)
        let csrf = try await browser.signIn(key: test.adminKey)
        let bad = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "mail"), ("appIDs", "not-an-app-id"),
                                                              ("logoutAction", "https://mail.example.com/logout")])
        #expect(bad.status == 422)
        #expect(bad.text.contains("appIDs"), "the error names the field")
        let good = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "mail"), ("role", "target"),
                                                               ("appIDs", "ABCDE12345.com.example.mail\r\nABCDE12345.com.example.mail2"),
                                                               ("logoutAction", "https://mail.example.com/logout"), ("deadlineSeconds", "20")])
        #expect(good.status == 303, "a list split by CRLF, as browsers send line breaks: \(good.text)")
        #expect(try await browser.get("/dashboard/apps").text.contains("not served (404)"), "a target alone puts nothing in this server's file")
        let launcher = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "launcher"), ("role", "launcher"),
                                                                   ("appIDs", "ABCDE12345.com.example.launcher")])
        #expect(launcher.status == 303, "\(launcher.text)")
        let page = try await browser.get("/dashboard/apps")
        #expect(page.text.contains("ABCDE12345.com.example.mail"))
        #expect(page.text.contains(#"id="aasa""#))
        #expect(page.text.contains("/ulc/cb/*"), "the preview includes this server's callback paths")
        // Text from the registry is escaped, never markup.
        _ = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "<script>x</script>"), ("role", "target"),
                                                       ("appIDs", "ABCDE12345.com.example.x"), ("logoutAction", "https://x.example.com/logout")])
        let escaped = try await browser.get("/dashboard/apps")
        #expect(!escaped.text.contains("<script>x</script>"))
        try await test.stop()
    }
}
