@testable import DeviceSimulator
import Foundation
import Testing

/// The bench's loopback badge directory: a badge of the bench's shape names a person of its own,
/// anything else is unknown (404), as the customer's lookup answers (issue 40).
@Suite(.timeLimit(.minutes(5))) struct BadgeDirectoryTests {
    @Test func aBadgeOfTheBenchsShapeNamesAPersonOfItsOwn() {
        let badge = BadgeDirectory.badge(stamp: "x1k9", number: 42)
        #expect(badge == "B-x1k9-00042")
        #expect(BadgeDirectory.login(for: badge) == "nurse-x1k9-00042@bench.example")
        #expect(BadgeDirectory.login(for: BadgeDirectory.badge(stamp: "x1k9", number: 43)) != BadgeDirectory.login(for: badge))
        for other in ["", "0042", "B-x1k9", "B--00042", "B-X1K9-00042", "B-x1k9-42a", "C-x1k9-00042", "B-x1k9-00042-1", "B-x1k9-1234567890"] {
            #expect(BadgeDirectory.login(for: other) == nil, "\(other)")
        }
    }

    @Test func theDirectoryAnswersTheLoginOrNotFoundOverHTTP() async throws {
        let directory = try await BadgeDirectory.start()
        let http = BenchHTTP(connections: 2)
        let lookup = directory.lookupURL.absoluteString
        #expect(lookup.hasPrefix("http://127.0.0.1:") && lookup.hasSuffix("/badges"))
        let known = try await http.send(.GET, lookup + "?id=B-x1k9-00042")
        #expect(known.status == 200)
        #expect(try known.decode([String: String].self) == ["user": "nurse-x1k9-00042@bench.example"])
        // Percent-encoded as a server's lookup sends it.
        let encoded = try await http.send(.GET, lookup + "?id=B%2Dx1k9%2D00007")
        #expect(try encoded.decode([String: String].self)["user"] == "nurse-x1k9-00007@bench.example")
        for unknown in ["?id=0042", "?id=", "", "?badge=B-x1k9-00042"] {
            #expect(try await http.send(.GET, lookup + unknown).status == 404, "\(unknown)")
        }
        #expect(try await http.send(.GET, directory.lookupURL.deletingLastPathComponent().absoluteString + "elsewhere?id=B-x1k9-00042").status == 404)
        await http.shutdown()
        try await directory.shutdown()
    }
}
