import SCIM
import Testing

/// The PATCH examples of RFC 7644 §3.5.2.1–3.
@Suite struct SCIMPatchRFCTests {
    static let babs = "2819c223-7f76-453a-919d-413861904646"
    static let james = "08e1d05d-121c-4561-8b96-473d93df9210"

    func memberIDs(_ group: SCIMValue) -> [String] {
        group.member("members")?.arrayValue?.compactMap { $0.member("value")?.stringValue } ?? []
    }

    /// §3.5.2.1: add members; a member already there is not added twice.
    @Test func addMembers() throws {
        let added = try patched(tourGuides, #"""
            [{"op":"add","path":"members","value":[{"display":"Babs Jensen","$ref":"https://example.com/v2/Users/2819c223-7f76-453a-919d-413861904646","value":"2819c223-7f76-453a-919d-413861904646"},
                                                   {"display":"James Smith","$ref":"https://example.com/v2/Users/08e1d05d-121c-4561-8b96-473d93df9210","value":"08e1d05d-121c-4561-8b96-473d93df9210"}]}]
            """#, schema: .group)
        #expect(memberIDs(added) == [Self.babs, Self.james])
        #expect(added.member("displayName") == .string("Tour Guides"))
    }

    /// §3.5.2.1: add without a path merges the attributes given; multi-valued ones are appended.
    @Test func addWithoutPath() throws {
        let user = try json(#"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"bjensen","emails":[{"value":"bjensen@example.com","type":"work"}]}"#)
        let added = try patched(user, #"[{"op":"add","value":{"emails":[{"value":"babs@jensen.org","type":"home"}],"nickname":"Babs"}}]"#)
        #expect(added.member("emails")?.arrayValue?.count == 2)
        #expect(added.member("nickName") == .string("Babs"))
        #expect(added.member("userName") == .string("bjensen"))
    }

    /// §3.5.2.2: remove one member by filter, all members, and replace one member by another.
    @Test func removeMembers() throws {
        let group = try patched(tourGuides, #"[{"op":"add","path":"members","value":[{"value":"08e1d05d-121c-4561-8b96-473d93df9210"}]}]"#, schema: .group)
        let removed = try patched(group, #"[{"op":"remove","path":"members[value eq \"2819c223-7f76-453a-919d-413861904646\"]"}]"#, schema: .group)
        #expect(memberIDs(removed) == [Self.james])
        let emptied = try patched(group, #"[{"op":"remove","path":"members"}]"#, schema: .group)
        #expect(emptied.member("members") == nil)
        let swapped = try patched(tourGuides, #"""
            [{"op":"remove","path":"members[value eq \"2819c223-7f76-453a-919d-413861904646\"]"},
             {"op":"add","path":"members","value":[{"display":"James Smith","$ref":"https://example.com/v2/Users/08e1d05d-121c-4561-8b96-473d93df9210","value":"08e1d05d-121c-4561-8b96-473d93df9210"}]}]
            """#, schema: .group)
        #expect(memberIDs(swapped) == [Self.james])
    }

    /// §3.5.2.2: remove the values a filter on emails matches; a sub-attribute of them.
    @Test func removeWithFilterOnEmails() throws {
        let removed = try patched(barbara, #"[{"op":"remove","path":"emails[type eq \"work\" and value ew \"example.com\"]"}]"#)
        #expect(removed.member("emails") == .array([try json(#"{"value":"babs@jensen.org","type":"home"}"#)]))
        let unprimary = try patched(barbara, #"[{"op":"remove","path":"emails[type eq \"work\"].primary"}]"#)
        #expect(unprimary.member("emails")?.arrayValue?.first == (try json(#"{"value":"bjensen@example.com","type":"work"}"#)))
        let noTitle = try patched(barbara, #"[{"op":"remove","path":"title"}]"#)
        #expect(noTitle.member("title") == nil)
        let noGiven = try patched(barbara, #"[{"op":"remove","path":"name.givenName"}]"#)
        #expect(noGiven.member("name")?.member("givenName") == nil)
        #expect(noGiven.member("name")?.member("familyName") == .string("Jensen"))
    }

    /// §3.5.2.3: replace all members; a work address; its street; attributes without a path.
    @Test func replace() throws {
        let members = try patched(tourGuides, #"""
            [{"op":"replace","path":"members","value":[{"display":"Babs Jensen","value":"2819c223-7f76-453a-919d-413861904646"},{"display":"James Smith","value":"08e1d05d-121c-4561-8b96-473d93df9210"}]}]
            """#, schema: .group)
        #expect(memberIDs(members) == [Self.babs, Self.james])

        let address = try patched(barbara, #"""
            [{"op":"replace","path":"addresses[type eq \"work\"]","value":{"type":"work","streetAddress":"911 Universal City Plaza","locality":"Hollywood","region":"CA","postalCode":"91608","country":"US","formatted":"911 Universal City Plaza\nHollywood, CA 91608 US","primary":true}}]
            """#)
        #expect(address.member("addresses")?.arrayValue?.count == 1)
        #expect(address.member("addresses")?.arrayValue?.first?.member("streetAddress") == .string("911 Universal City Plaza"))
        #expect(address.member("addresses")?.arrayValue?.first?.member("country") == .string("US"))

        let street = try patched(barbara, #"[{"op":"replace","path":"addresses[type eq \"work\"].streetAddress","value":"1010 Broadway Ave"}]"#)
        #expect(street.member("addresses")?.arrayValue?.first?.member("streetAddress") == .string("1010 Broadway Ave"))
        #expect(street.member("addresses")?.arrayValue?.first?.member("locality") == .string("Hollywood"))

        let emails = try patched(barbara, #"""
            [{"op":"replace","value":{"emails":[{"value":"bjensen@example.com","type":"work","primary":true},{"value":"babs@jensen.org","type":"home"}],"nickname":"Babsy"}}]
            """#)
        #expect(emails.member("emails")?.arrayValue?.count == 2)
        #expect(emails.objectValue?["nickName"] == .string("Babsy"))  // the existing key's spelling
        #expect(emails.objectValue?["nickname"] == nil)
    }

    /// §3.5.2.3: a value filter that matches nothing is `noTarget`.
    @Test func replaceWithoutMatchIsNoTarget() throws {
        let error = try patchError(barbara, #"[{"op":"replace","path":"addresses[type eq \"home\"]","value":{"type":"home","locality":"Ojai"}}]"#)
        #expect(error?.scimType == .noTarget)
        #expect(error?.detail.contains("addresses") == true)
        #expect(error?.detail.contains("operation 1") == true)
    }

    /// RFC 7643 §2.4: at most one primary; the one last set wins.
    @Test func onePrimary() throws {
        let home = try patched(barbara, #"[{"op":"replace","path":"emails[type eq \"home\"].primary","value":true}]"#)
        let primaries = home.member("emails")?.arrayValue?.map { $0.member("primary") == .bool(true) }
        #expect(primaries == [false, true])
        let added = try patched(barbara, #"[{"op":"add","path":"emails","value":{"value":"new@example.com","type":"other","primary":true}}]"#)
        #expect(added.member("emails")?.arrayValue?.map { $0.member("primary") == .bool(true) } == [false, false, true])
    }

    /// All or nothing: a failing operation throws, naming it, and the resource is untouched
    /// (the caller keeps the original).
    @Test func failingOperationNamesItself() throws {
        let error = try patchError(barbara, #"[{"op":"replace","path":"title","value":"Boss"},{"op":"replace","path":"id","value":"x"}]"#)
        #expect(error?.scimType == .mutability)
        #expect(error?.detail.contains("operation 2") == true)
        #expect(error?.detail.contains("'id'") == true)
    }

    /// A path naming an extension's URI alone targets the extension's object (RFC 7644 §3.5.2:
    /// the path's URI is the schema; here it is all there is).
    @Test func extensionAsAWhole() throws {
        let user = try json(#"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ada"}"#)
        let added = try patched(user, #"[{"op":"add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User","value":{"department":"ICU"}}]"#)
        #expect(added.member(SCIMSchemaURI.enterpriseUser) == .object(["department": .string("ICU")]))
        #expect(added.member("urn:ietf:params:scim:schemas:extension:enterprise:2.0") == nil)
        let removed = try patched(added, #"[{"op":"remove","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"}]"#)
        #expect(removed.member(SCIMSchemaURI.enterpriseUser) == nil)
        #expect(removed.member("userName") == .string("ada"))
    }
}
