import Foundation
@testable import HandoverCore
import Testing

/// The audit log records facts, not input (issue 63, finding 5): what ``RefusalDigest`` decides
/// for refusals of unauthenticated requests, and how ``StrangerText`` bounds what a stranger sent.
struct RefusalDigestTests {
    @Test func aStrangersTextIsEscapedAndBoundedWithItsLengthAndHash() {
        #expect(StrangerText.bounded("RS256") == "RS256")
        #expect(StrangerText.bounded("a\u{1B}[2Jb\nc") == "a\\u{1B}[2Jb\\u{A}c")
        let kid = String(repeating: "A", count: 150 * 1024)
        let shown = StrangerText.bounded(kid)
        #expect(shown.utf8.count < 200 && shown.hasPrefix(String(repeating: "A", count: 120)), "\(shown)")
        #expect(shown.hasSuffix("… (153600 bytes, sha256 \(BearerSecret.digest(kid).prefix(16)))"), "\(shown)")
        // Two long values that differ after the kept prefix are still told apart.
        #expect(StrangerText.bounded(kid + "B") != StrangerText.bounded(kid + "C"))
        // Multi-byte characters are never cut in half.
        let wide = String(repeating: "é", count: 100)
        #expect(StrangerText.bounded(wide, limit: 11).hasPrefix(String(repeating: "é", count: 5) + "…"))
    }

    @Test func theFirstRefusalOfAWindowIsRecordedAndTheOthersSummarisedWhenItCloses() throws {
        let digest = RefusalDigest(window: 600, addressLimit: 100)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = digest.note(address: "203.0.113.7", reason: "bad state", rateLimited: false, now: start)
        #expect(first.decision == .record(address: "203.0.113.7") && first.closed.isEmpty)
        for second in 1...39 {
            let reason = second % 3 == 0 ? "bad token" : "bad state"
            let (decision, closed) = digest.note(address: "203.0.113.7", reason: reason, rateLimited: second > 29, now: start + Double(second))
            #expect(decision == .counted && closed.isEmpty)
        }
        // Another address has its own window; four reasons name three, and count the fourth.
        #expect(digest.note(address: "198.51.100.2", reason: "r1", rateLimited: false, now: start + 100).decision == .record(address: "198.51.100.2"))
        for reason in ["r1", "r2", "r3", "r4", "r4"] { _ = digest.note(address: "198.51.100.2", reason: reason, rateLimited: false, now: start + 101) }
        #expect(digest.closed(now: start + 599).isEmpty, "the windows are open")

        let (decision, closed) = digest.note(address: "203.0.113.7", reason: "bad state", rateLimited: false, now: start + 601)
        #expect(decision == .record(address: "203.0.113.7"), "a new window")
        #expect(closed.count == 1)
        let summary = try #require(closed.first)
        #expect(summary.count == 39 && summary.rateLimited == 10)
        #expect(summary.reasons == [.init(text: "bad state", count: 26), .init(text: "bad token", count: 13)])
        #expect(summary.detail.hasPrefix("39 more refusals from 203.0.113.7 from "), "\(summary.detail)")
        #expect(summary.detail.hasSuffix("(10 answered 429): 26 × bad state; 13 × bad token"), "\(summary.detail)")

        let rest = digest.all()
        #expect(rest.count == 1 && rest.first?.address == "198.51.100.2")
        #expect(rest.first?.detail.hasSuffix(": 1 × r1; 1 × r2; 1 × r3; 2 × other reasons") == true, "\(rest.first?.detail ?? "")")
        #expect(digest.all().isEmpty, "taken out")
    }

    @Test func pastTheAddressLimitRefusalsShareOneWindow() {
        let digest = RefusalDigest(window: 600, addressLimit: 2)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(digest.note(address: "a", reason: "x", rateLimited: false, now: now).decision == .record(address: "a"))
        #expect(digest.note(address: "b", reason: "x", rateLimited: false, now: now).decision == .record(address: "b"))
        #expect(digest.note(address: "c", reason: "x", rateLimited: false, now: now).decision == .record(address: RefusalDigest.otherAddresses))
        for address in ["d", "e", "f"] {
            #expect(digest.note(address: address, reason: "x", rateLimited: false, now: now).decision == .counted)
        }
        #expect(digest.all().map(\.detail).contains { $0.hasPrefix("3 more refusals from other addresses") })
        // An address is kept to 64 bytes.
        let long = String(repeating: "f", count: 500)
        guard case .record(let named) = RefusalDigest().note(address: long, reason: "x", rateLimited: false, now: now).decision else {
            Issue.record("the first refusal is recorded")
            return
        }
        #expect(named.utf8.count < 120)
    }
}
