import Foundation
import HandoverServer
import Testing

/// The fleet import on the dashboard (issue 66, item 2): a CSV file uploaded (multipart) or
/// pasted is previewed with nothing written, each refused row with its line, field and reason;
/// the confirm imports exactly what was previewed, or nothing when the registry changed since.
@Suite("Dashboard fleet import", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct DashboardImportTests {
    static let jamf = """
        Display Name,Serial Number,UDID,Model,Management ID,Site,Last Inventory Update
        ICU phone 1,C02JAMF00001,00008030-001A,iPhone 13,0a7e5c3c-1111-4f0b-9a51-6d7b9f1d2c01,ICU,2026-11-26 07:00:00
        Ward 7 phone 1,C02JAMF00002,00008030-001B,iPhone 13,0a7e5c3c-2222-4f0b-9a51-6d7b9f1d2c02,Ward 7,2026-11-26 07:00:00
        Old phone,C02TAKEN0001,00008030-001C,iPhone 11,0a7e5c3c-3333-4f0b-9a51-6d7b9f1d2c03,Ward 7,2026-11-26 07:00:00
        ,C02JAMF00004,00008030-001D,iPhone 13,0a7e5c3c-4444-4f0b-9a51-6d7b9f1d2c04,ICU,2026-11-26 07:00:00
        """

    /// Posts `fields` and one file as multipart/form-data, with the browser's cookies.
    static func upload(_ browser: DashboardBrowser, _ path: String, fields: [(String, String)], file: String) async throws -> TestServer.Reply {
        let boundary = "----handover-test-\(UUID().uuidString)"
        var body = ""
        for (name, value) in fields {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"devices.csv\"\r\nContent-Type: text/csv\r\n\r\n\(file)\r\n"
        body += "--\(boundary)--\r\n"
        let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        return try await browser.test.request(.POST, path, headers: [("Cookie", cookie), ("Content-Type", "multipart/form-data; boundary=\(boundary)")],
                                              body: body)
    }

    /// The value of the page's hidden input `name`, unescaped.
    static func hidden(_ name: String, in page: String) -> String? {
        guard let start = page.range(of: #"name="\#(name)" value=""#) else { return nil }
        let value = page[start.upperBound...].prefix { $0 != "\"" }
        return String(value).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func aJamfExportIsPreviewedThenImportedExactlyAsShown() async throws {
        try await TestServer.with(.sqlite) { test in
            let taken = try await test.request(.POST, "/api/v1/devices", json: ["name": "ward-7-old", "serialNumber": "C02TAKEN0001"], key: test.adminKey)
            #expect(taken.status == 201)
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let form = try await browser.get("/dashboard/devices/import")
            #expect(form.status == 200 && DashboardRoleTests.postForms(in: form.text) == ["/dashboard/devices/import/preview"], "\(form.text)")
            #expect(try await browser.get("/dashboard/devices").text.contains("/dashboard/devices/import"), "the list links to the import")

            let preview = try await Self.upload(browser, "/dashboard/devices/import/preview", fields: [("csrf", csrf)], file: Self.jamf)
            #expect(preview.status == 200, "\(preview.status): \(preview.text)")
            let added = try #require(preview.text.components(separatedBy: #"id="to-add""#).last?.components(separatedBy: "</section>").first)
            #expect(added.contains("To add (2)") && added.contains("ICU phone 1") && added.contains("Ward 7 phone 1") && added.contains("<td>Ward 7</td>"),
                    "\(added)")
            let refused = try #require(preview.text.components(separatedBy: #"id="refused""#).last?.components(separatedBy: "</section>").first)
            #expect(refused.contains("Refused (2)"), "\(refused)")
            #expect(refused.contains("<td>4</td><td>serialNumber</td>") && refused.contains("already registered, to &#39;ward-7-old&#39;"), "\(refused)")
            #expect(refused.contains("<td>5</td><td>name</td>"), "\(refused)")
            #expect(preview.text.contains("Jamf Pro export"))
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.count == 1, "a preview writes nothing")

            let csv = try #require(Self.hidden("csv", in: preview.text))
            let digest = try #require(Self.hidden("preview", in: preview.text))
            let forged = try await browser.post("/dashboard/devices/import", [("csrf", "wrong"), ("csv", csv), ("preview", digest)])
            #expect(forged.status == 403)
            let done = try await browser.post("/dashboard/devices/import", [("csrf", csrf), ("csv", csv), ("preview", digest)])
            #expect(done.status == 201 && done.text.contains("Imported 2 devices"), "\(done.status): \(done.text)")
            #expect(done.text.contains("line,name,serialNumber,deviceID,key") && done.text.contains("hov_"), "the keys, shown once")
            let devices = try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array
            #expect(Set(devices.compactMap { $0["site"] as? String }) == ["ICU", "Ward 7"], "\(devices)")
            #expect(devices.count == 3)

            // The same confirm again would not import what was previewed: nothing is, and the new preview says why.
            let again = try await browser.post("/dashboard/devices/import", [("csrf", csrf), ("csv", csv), ("preview", digest)])
            #expect(again.status == 409 && again.text.contains("The registry changed since the preview") && again.text.contains("To add (0)"),
                    "\(again.status): \(again.text)")
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.count == 3)
        }
    }

    @Test func aPastedFileIsPreviewedAndAFileRefusedWholeSaysWhy() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let empty = try await browser.post("/dashboard/devices/import/preview", [("csrf", csrf), ("csv", "  ")])
            #expect(empty.status == 422 && empty.text.contains("file: choose a CSV file"), "\(empty.status)")
            let unknown = try await browser.post("/dashboard/devices/import/preview", [("csrf", csrf), ("csv", "name,colour\nicu-1,red")])
            #expect(unknown.status == 422 && unknown.text.contains("&#39;colour&#39;, is not a column here"), "\(unknown.text)")
            let pasted = try await browser.post("/dashboard/devices/import/preview", [("csrf", csrf), ("csv", "name,site\nicu-phone-9,ICU")])
            #expect(pasted.status == 200 && pasted.text.contains("To add (1)") && pasted.text.contains("icu-phone-9"), "\(pasted.text)")
        }
    }

    @Test func aViewerIsOfferedNoImportAndIsRefusedIt() async throws {
        try await TestServer.with(.sqlite) { test in
            let viewer = try await test.server.createAPIKey(name: "wall", scope: .viewer)
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: viewer)
            #expect(!(try await browser.get("/dashboard/devices").text.contains("/dashboard/devices/import")))
            #expect(try await browser.get("/dashboard/devices/import").status == 403)
            for path in ["/dashboard/devices/import/preview", "/dashboard/devices/import"] {
                let reply = try await browser.post(path, [("csrf", csrf), ("csv", "name\nx")])
                #expect(reply.status == 403 && reply.text.contains("needs operator"), "\(path): \(reply.status)")
            }
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.isEmpty)
        }
    }
}
