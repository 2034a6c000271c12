import Foundation
import Testing
@testable import OutOfBand

/// A push token registration's timestamp is a UNIX time a request chose: read from 64 bits, it
/// is kept within what a `Date` and the signed lines' `Int64` can say both ways (issue 63), so
/// writing its signed lines never traps.
@Suite(.timeLimit(.minutes(5))) struct PushTokenRegistrationTests {
    static func body(timestamp: String) -> Data {
        Data(#"{"deviceID":"dev_1","token":"\#(String(repeating: "ab", count: 32))","timestamp":\#(timestamp),"signature":"x"}"#.utf8)
    }

    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "-1", "253402300800"])
    func aTimestampOutsideTheCalendarIsRefusedNamingIt(timestamp: String) {
        #expect(throws: OutOfBandError.self) { try PushTokenRegistration(json: Self.body(timestamp: timestamp)) }
        do {
            _ = try PushTokenRegistration(json: Self.body(timestamp: timestamp))
        } catch {
            #expect(error.field == "timestamp" && error.accepted.contains("253402300799"), "\(error)")
        }
    }

    @Test func aTimestampWithinIsReadAndItsLinesSayIt() throws {
        let registration = try PushTokenRegistration(json: Self.body(timestamp: "1750000000"))
        #expect(String(decoding: registration.canonicalBytes, as: UTF8.self).hasSuffix("timestamp:1750000000"))
        let last = try PushTokenRegistration(json: Self.body(timestamp: "253402300799"))
        #expect(String(decoding: last.canonicalBytes, as: UTF8.self).hasSuffix("timestamp:253402300799"))
    }
}
