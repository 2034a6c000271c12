import Foundation
import OpenAPIRuntime
import PropertyBased
import Testing
@testable import HandoverServer

/// The API writes its dates with a format style instead of the runtime's locked formatter: the
/// text must not change, and what it writes must read back.
@Suite struct APIDateTranscoderTests {
    @Test func writesWhatTheRuntimesTranscoderWritesForAnyDate() async throws {
        let ours = APIDateTranscoder()
        let runtime = ISO8601DateTranscoder()
        // From 1970 to 2200, with fractions of a second (the API writes whole seconds).
        await propertyCheck(count: 1000, input: Gen<Double>.double(in: 0...7_258_118_400)) { seconds in
            let date = Date(timeIntervalSince1970: seconds)
            let written = try? ours.encode(date)
            #expect(written == (try? runtime.encode(date)))
            #expect(written.flatMap { try? ours.decode($0) } == Date(timeIntervalSince1970: seconds.rounded(.down)))
        }
    }

    @Test func readsWhatTheRuntimeReadsAndRefusesTheRest() throws {
        let ours = APIDateTranscoder()
        #expect(try ours.decode("2026-11-24T07:00:00Z") == Date(timeIntervalSince1970: 1_795_503_600))
        #expect(try ours.decode("2026-11-24T08:00:00+01:00") == Date(timeIntervalSince1970: 1_795_503_600))
        #expect(throws: (any Error).self) { try ours.decode("24/11/2026") }
    }
}
