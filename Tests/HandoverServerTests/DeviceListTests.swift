import Foundation
import Testing

/// The dashboard at fleet scale: the device list is paged, searched and filtered in the
/// database, and the overview stops listing every device once the fleet is large.
@Suite(.timeLimit(.minutes(5))) struct DeviceListTests {
    /// Rows of the devices table: each device's link text.
    static func listedNames(_ page: String) -> [String] {
        guard let table = page.range(of: #"<table id="devices">"#) else { return [] }
        let rest = page[table.upperBound...]
        let end = rest.range(of: "</table>")?.lowerBound ?? rest.endIndex
        return rest[..<end].components(separatedBy: #"<a href="/dashboard/devices/"#).dropFirst().compactMap { chunk in
            chunk.split(separator: ">", maxSplits: 1).last?.split(separator: "<", maxSplits: 1).first.map(String.init)
        }
    }

    @Test(arguments: TestDatabase.available)
    func theListIsPagedSearchedByNameOrSerialAndFiltered(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Mail")
        var failing: (id: String, key: String)?
        for index in 1...60 {
            var fields: [String: Any] = ["name": String(format: "Phone-%03d", index)]
            if index == 7 { fields["serialNumber"] = "C02XK1ABJG5H" }
            let reply = try await test.request(.POST, "/api/v1/devices", json: fields, key: test.adminKey)
            #expect(reply.status == 201, "\(reply.text)")
            if index == 42 {
                let device = reply.json["device"] as? [String: Any]
                failing = (device?["id"] as? String ?? "", reply.json["key"] as? String ?? "")
            }
        }
        // Phone-042's run fails: out of service, and a failed run in the last 24 h.
        let device = try #require(failing)
        let run = try await LogoutRunTests.startRun(test, device: device)
        let error = try LogoutRunTests.callback(try #require(run.link("Mail")), "error", on: test)
        #expect(try await test.request(.GET, error).status == 200)

        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let first = try await browser.get("/dashboard/devices")
        #expect(first.status == 200)
        #expect(Self.listedNames(first.text).count == 50)
        #expect(Self.listedNames(first.text).first == "Phone-001")
        #expect(first.text.contains("60 devices · page 1 of 2"))
        #expect(first.text.contains(#"href="/dashboard/devices?page=2" rel="next""#))
        let second = try await browser.get("/dashboard/devices?page=2")
        #expect(Self.listedNames(second.text) == (51...60).map { String(format: "Phone-%03d", $0) })

        let byName = try await browser.get("/dashboard/devices?q=phone-05")
        #expect(Self.listedNames(byName.text) == (50...59).map { String(format: "Phone-%03d", $0) })
        let bySerial = try await browser.get("/dashboard/devices?q=abjg5")
        #expect(Self.listedNames(bySerial.text) == ["Phone-007"])
        // LIKE's own characters are searched for as text, not as patterns.
        for text in ["%25", "_", "%5C", "'%3B--"] {
            let odd = try await browser.get("/dashboard/devices?q=\(text)")
            #expect(odd.status == 200)
            #expect(Self.listedNames(odd.text).isEmpty, "q=\(text)")
        }

        let outOfService = try await browser.get("/dashboard/devices?filter=out-of-service")
        #expect(Self.listedNames(outOfService.text) == ["Phone-042"])
        let failedToday = try await browser.get("/dashboard/devices?filter=failed-24h")
        #expect(Self.listedNames(failedToday.text) == ["Phone-042"])
        let inService = try await browser.get("/dashboard/devices?status=in_service&q=phone-04")
        #expect(Self.listedNames(inService.text) == (40...49).filter { $0 != 42 }.map { String(format: "Phone-%03d", $0) })
        // Values it does not know fall back to the whole list, page 1.
        let unknown = try await browser.get("/dashboard/devices?status=melted&filter=nope&page=-3")
        #expect(Self.listedNames(unknown.text).count == 50)

        // The overview of 60 devices shows counts and the queue, not a table of every device.
        let overview = try await browser.get("/dashboard")
        #expect(overview.text.contains("Devices (60)"))
        #expect(overview.text.contains("Needs attention (1)"))
        #expect(overview.text.contains("Phone-042"))
        #expect(!overview.text.contains("Phone-013"))
        #expect(overview.text.contains(#"href="/dashboard/devices?status=out_of_service""#))
        try await test.stop()
    }

    /// A page past the last one is not an empty list that looks like the end of the fleet: 404,
    /// with a page that names the last page and links to it (the search kept).
    @Test func aPagePastTheLastIs404WithALinkToTheLast() async throws {
        let test = try await TestServer.start(.sqlite)
        for index in 1...51 {
            #expect(try await test.request(.POST, "/api/v1/devices", json: ["name": String(format: "Phone-%03d", index)], key: test.adminKey).status == 201)
        }
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        #expect(try await browser.get("/dashboard/devices?page=2").status == 200)
        let far = try await browser.get("/dashboard/devices?page=100000")
        #expect(far.status == 404)
        #expect(far.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
        #expect(far.text.contains("There is no page 100000") && far.text.contains("the last is page 2"), "\(far.text)")
        #expect(far.text.contains(#"href="/dashboard/devices?page=2""#), "\(far.text)")
        let searched = try await browser.get("/dashboard/devices?q=phone-00&page=3")
        #expect(searched.status == 404)
        #expect(searched.text.contains(#"href="/dashboard/devices?q=phone-00""#) && searched.text.contains("the last is page 1"), "\(searched.text)")
        let none = try await browser.get("/dashboard/devices?q=nothing-matches&page=2")
        #expect(none.status == 404)
        #expect(try await browser.get("/dashboard/devices?q=nothing-matches").status == 200, "page 1 always exists")
        try await test.stop()
    }
}
