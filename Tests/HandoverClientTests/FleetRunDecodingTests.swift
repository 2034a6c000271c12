import Foundation
import HandoverClient
import PropertyBased
import Testing

/// The SDK's decoder of the server's runs reads every date form the server may send: ISO 8601
/// with or without fractional seconds, `Z` or an offset, and seconds since 2001 as a number.
@Suite("Fleet run decoding")
struct FleetRunDecodingTests {
    private struct Stamp: Decodable { var at: Date }

    private func decode(_ json: String) throws -> Date {
        try FleetRun.decoder.decode(Stamp.self, from: Data(json.utf8)).at
    }

    /// Any instant (whole milliseconds, 1970 to 2100) written in each form reads back as that instant.
    @Test func everyFormReadsBackTheSameInstant() async {
        let milliseconds = Gen<Int64>.int64(in: 0...4_102_444_800_000)
        let offsets = Gen<Int>.int(in: -12...14)
        await propertyCheck(count: 300, input: milliseconds, offsets) { milliseconds, offsetHours in
            let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
            let whole = Date(timeIntervalSince1970: (date.timeIntervalSince1970).rounded(.down))
            let utc = TimeZone(identifier: "UTC")!
            let zone = TimeZone(secondsFromGMT: offsetHours * 3600)!
            #expect((try? decode(#"{"at":"\#(whole.formatted(.iso8601))"}"#)) == whole)
            let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: utc).format(date)
            #expect(abs((try? decode(#"{"at":"\#(fractional)"}"#))?.timeIntervalSince(date) ?? 1) < 0.0011, "\(fractional)")  // the style writes milliseconds truncated
            let offset = Date.ISO8601FormatStyle(timeZone: zone).format(whole)
            #expect((try? decode(#"{"at":"\#(offset)"}"#)) == whole, "\(offset)")
            #expect((try? decode(#"{"at":\#(date.timeIntervalSinceReferenceDate)}"#)) == date)
        }
    }

    /// A date that is no date is a decoding error that says what it read.
    @Test func aBadDateIsRefusedWithItsText() {
        #expect {
            try decode(#"{"at":"24 November 2026"}"#)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("24 November 2026")
        }
    }
}
