import Foundation
import Testing
@testable import HandoverServer

/// ``BoundsProbe`` and ``ValueBounds``, without a server: what is refused, how the field is named,
/// how a length is counted, and that a body too short to break a bound is not read.
@Suite struct BoundsProbeTests {
    static let stream: ValueBounds = .object(["delivery": .object(["endpoint_url": .string(maxLength: 10)]),
                                              "ack": .array(maxItems: 3, items: .string(maxLength: 2)),
                                              "maxEvents": .integer(minimum: 0, maximum: 1000)])

    static func refusal(_ json: String, _ bounds: ValueBounds = stream) -> ValueBounds.Refusal? {
        BoundsProbe.refusal(in: Data(json.utf8), bounds: bounds)
    }

    @Test func aNestedFieldIsNamedByItsPath() {
        #expect(Self.refusal(#"{"delivery":{"endpoint_url":"https://x.example"}}"#)?.field == "delivery.endpoint_url")
        #expect(Self.refusal(#"{"ack":["a","bb","ccc"]}"#)?.field == "ack[2]")
        #expect(Self.refusal(#"{"ack":["a","b","c","d"]}"#)?.field == "ack")
        let refusal = Self.refusal(#"{"maxEvents":9223372036854775808}"#)
        #expect(refusal?.field == "maxEvents" && refusal?.code == "out_of_bounds")
        #expect(refusal?.apiError.reason.contains("accepted: a whole number from 0 to 1000") == true, "\(String(describing: refusal))")
        #expect(Self.refusal(#"{"maxEvents":-1}"#)?.apiError.reason == "maxEvents: -1 is below 0; accepted: a whole number from 0 to 1000.")
    }

    @Test func valuesWithinAndValuesOfAnotherTypeAreNoRefusal() {
        #expect(Self.refusal(#"{"delivery":{"endpoint_url":"0123456789"},"ack":["a","bb",""],"maxEvents":1000,"other":[1,2,3]}"#) == nil)
        // The operation's own decoding answers these (400 invalid_json): the probe adds no second opinion.
        for json in [#"{"maxEvents":"many"}"#, #"{"ack":"x"}"#, #"{"delivery":5}"#, "not json", "[1,2]", #"{"maxEvents":null}"#, #"{"maxEvents":1e400}"#] {
            #expect(Self.refusal(json) == nil, "\(json)")
        }
    }

    /// JSON Schema counts a string's length in code points (JSON Schema Validation §6.3.1): a
    /// letter and its combining accent are two.
    @Test func aLengthIsCountedInCodePoints() {
        let bounds: ValueBounds = .object(["name": .string(maxLength: 2)])
        #expect(Self.refusal(#"{"name":"é\u00e9"}"#, bounds) == nil)
        #expect(Self.refusal("{\"name\":\"e\u{301}e\"}", bounds)?.field == "name")
        #expect(bounds.refusal(ofParameter: "😀😀", field: "q") == nil)
    }

    @Test func aBodyTooShortToBreakABoundIsNotRead() {
        let checkOut: ValueBounds = .object(["accessToken": .string(maxLength: 4096), "badge": .string(maxLength: 128)])
        #expect(checkOut.shortestBreakingJSON == 131)
        let operation = OperationBounds(operationID: "checkOutDevice", generated: true, parameters: [], body: checkOut)
        #expect(operation.shortestBreakingBody == 131 && operation.refusal(inBody: Data(#"{"badge":"0042-1337-AB"}"#.utf8)) == nil)
        #expect(Self.stream.shortestBreakingJSON == 0, "an integer's bound can be broken at any length")
        #expect(ValueBounds.array(maxItems: 2).shortestBreakingJSON == 7)
        // The shortest body that breaks each is exactly that long.
        #expect(Self.refusal("{\"badge\":\"\(String(repeating: "b", count: 129))\"}", checkOut)?.field == "badge")
        #expect(#"{"badge":""}"#.utf8.count + 129 == 141 && "[1,2,3]".utf8.count == 7)
        #expect(BoundsProbe.refusal(in: Data("[1,2,3]".utf8), bounds: .array(maxItems: 2))?.field == "")
    }

    @Test func aParameterIsAWholeNumberOrNamedAsNotOne() {
        let page: ValueBounds = .integer(minimum: 1, maximum: 100_000)
        #expect(page.refusal(ofParameter: "100000", field: "page") == nil && page.refusal(ofParameter: "+1", field: "page") == nil)
        #expect(page.refusal(ofParameter: "9223372036854775807", field: "page")?.code == "out_of_bounds")
        #expect(page.refusal(ofParameter: "-9223372036854775809", field: "page")?.problem.contains("beyond a 64-bit integer") == true)
        for text in ["abc", "", "1.5", "1e3", "0x10", " 1", "--1"] {
            #expect(page.refusal(ofParameter: text, field: "page")?.code == "invalid_parameter", "\(text)")
        }
        #expect(DeclaredBoundsGuard.values(of: "page", in: "page=1&x=2&page=%32+&pa%67e=3") == ["1", "2 ", "3"])
    }
}
