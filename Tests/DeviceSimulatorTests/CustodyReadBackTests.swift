@testable import DeviceSimulator
import Foundation
import Testing

/// After a storm, each phone checked out must show its badge's person, checked in by the run its
/// launcher started; anything else counts against the storm (issue 40).
@Suite(.timeLimit(.minutes(5))) struct CustodyReadBackTests {
    @Test func eachPhoneMustBeCheckedInByItsOwnRunToTheBadgesPerson() async throws {
        let (matched, otherRun, missing, otherPerson, noRun) = (UUID(), UUID(), UUID(), UUID(), UUID())
        let (run, laterRun) = (UUID(), UUID())
        func record(_ device: UUID, _ number: Int, run: UUID?) -> String {
            let checkIn = run.map { #""checkedInAt": "2026-11-26T07:00:02Z", "runID": "\#($0.uuidString.lowercased())", "runStatus": "completed","# } ?? ""
            return """
                {"id": "\(UUID().uuidString)", "deviceID": "\(device.uuidString.lowercased())", "deviceName": "phone-\(number)",
                 "userID": "\(UUID().uuidString)", "personEmail": "nurse-s1-0000\(number)@bench.example", "checkedOutBy": "badge",
                 "checkedOutAt": "2026-11-26T07:00:01Z", \(checkIn) "appsLeftSignedIn": []}
                """
        }
        // Two pages of records, as the API pages them.
        let pages = [[record(matched, 1, run: run), record(otherRun, 2, run: laterRun)], [record(otherPerson, 9, run: run), record(noRun, 5, run: nil)]]
        let server = try await LoopbackServer.start()
        server.setHandler("/api/v1/custody") { request in
            let number = request.target.hasSuffix("page=2") ? 2 : 1
            return .init(contentType: "application/json", body: """
                {"custodies": [\(pages[number - 1].joined(separator: ","))], "page": \(number), "pageCount": 2, "total": 4}
                """)
        }
        let phones = [(matched, 1, run), (otherRun, 2, run), (missing, 3, run), (otherPerson, 4, run), (noRun, 5, nil)].map {
            StormTally.CheckedOut(device: $0.0, badge: BadgeDirectory.badge(stamp: "s1", number: $0.1), run: $0.2)
        }
        let http = BenchHTTP(connections: 2)
        let since = Date(timeIntervalSince1970: 1_795_000_000.7)
        let outcome = await CustodyReadBack(origin: server.origin, adminKey: "hov_admin", since: since).compare(phones, http: http)
        #expect(outcome.matched == 1)
        #expect(outcome.unmatched == 4)
        #expect(outcome.problems == ["custody not checked in by its run": 2, "custody missing after the storm": 1,
                                     "custody of another person than the badge's": 1])
        #expect(server.requests == ["/api/v1/custody?from=2026-11-18T11:06:40Z&page=1", "/api/v1/custody?from=2026-11-18T11:06:40Z&page=2"],
                "every page, from the storm's start to the second")

        server.setHandler("/api/v1/custody") { _ in .init(status: 500, contentType: "text/plain", body: "down") }
        let unreadable = await CustodyReadBack(origin: server.origin, adminKey: "hov_admin", since: since).compare(phones, http: http)
        #expect(unreadable.matched == 0 && unreadable.unmatched == 5)
        #expect(unreadable.problems.keys.allSatisfy { $0.hasPrefix("custody unreadable after the storm") })
        await http.shutdown()
        try await server.shutdown()
    }
}
