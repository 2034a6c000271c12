import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// The Custody page from values: a row per custody linking to the person and the device,
/// escaped names, the count and pages, the download links with the query, and the title.
@Suite struct CustodyPageTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func row(person: String?, device: String, checkedIn: Bool) throws -> CustodyReport.Row {
        let custody = Custody()
        custody.id = UUID()
        custody.deviceID = UUID()
        custody.userID = UUID()
        custody.personName = person
        custody.checkedOutBy = "badge"
        custody.checkedOutAt = now.addingTimeInterval(-3_600)
        custody.checkedInAt = checkedIn ? now : nil
        return try CustodyReport.Row(custody, deviceName: device)
    }

    @Test func eachCustodyHasARowWithItsPersonAndDevice() throws {
        let held = try Self.row(person: "<script>x</script>", device: "icu-<b>1</b>", checkedIn: false)
        let past = try Self.row(person: nil, device: "icu-2", checkedIn: true)
        let html = CustodyPage.body(CustodyReport(personText: "Ada \"L\""), page: .init(rows: [held, past], total: 250, page: 2),
                                    query: "?q=Ada&page=2").rendered
        #expect(html.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(html.contains("icu-&lt;b&gt;1&lt;/b&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("/dashboard/custody?person=\(held.userID.uuidString.lowercased())"))
        #expect(html.contains("/dashboard/devices/\(past.deviceID.uuidString.lowercased())"))
        #expect(html.contains(">\(past.userID.uuidString.lowercased())</a>"), "a person without a name or email shows as their id")
        #expect(html.contains("<td>holds it</td>"))
        #expect(html.contains("250 custodies · page 2 of 3"))
        #expect(html.contains("href=\"/dashboard/custody.csv?q=Ada&amp;page=2\""))
        #expect(html.contains("value=\"Ada &quot;L&quot;\""))
        #expect(html.components(separatedBy: "<tr>").count - 1 == 3)
    }

    @Test func oneCustodyIsCountedInTheSingular() {
        let html = CustodyPage.body(CustodyReport(), page: .init(rows: [], total: 1, page: 1), query: "").rendered
        #expect(html.contains("1 custody · "))
        #expect(!html.contains("page 1 of"))
    }

    @Test func aPersonsPageIsTitledWithTheirName() throws {
        let row = try Self.row(person: "Grace", device: "icu-1", checkedIn: true)
        #expect(CustodyPage.title(CustodyReport(person: row.userID), rows: [row]) == "Devices held by Grace")
        #expect(CustodyPage.title(CustodyReport(person: row.userID), rows: []) == "Custody")
        #expect(CustodyPage.title(CustodyReport(), rows: [row]) == "Custody")
    }
}
