import Foundation
import SCIM
import Testing

@Suite struct SCIMValueTests {
    /// RFC 7643 §2.1: attribute names are case-insensitive.
    @Test func membersAreFoundIgnoringCase() throws {
        let value = try JSONDecoder().decode(SCIMValue.self, from: Data(#"{"userName":"ada","active":true,"count":3}"#.utf8))
        #expect(value.member("USERNAME") == .string("ada"))
        #expect(value.member("active") == .bool(true))
        #expect(value.member("count") == .integer(3))
        #expect(value.key(of: "username") == "userName")
    }
}
