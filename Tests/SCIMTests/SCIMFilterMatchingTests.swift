import SCIM
import Testing

/// RFC 7644 §3.4.2.2's matching rules, on RFC 7643 §8.2's Barbara Jensen.
@Suite struct SCIMFilterMatchingTests {
    func holds(_ text: String, on resource: SCIMValue = barbara, schema: SCIMResourceSchema = .user) throws -> Bool {
        try SCIMFilter(parsing: text).matches(resource, schema: schema)
    }

    /// The RFC's examples, on a user each does or does not describe.
    @Test func rfcExamplesOnBarbara() throws {
        #expect(try holds(#"userName eq "bjensen@example.com""#))
        #expect(try !holds(#"userName eq "bjensen""#))
        #expect(try holds(#"name.familyName co "ense""#))
        #expect(try holds(#"userName sw "BJ""#))  // userName is not caseExact
        #expect(try holds(#"urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J""#) == false)
        #expect(try holds(#"urn:ietf:params:scim:schemas:core:2.0:User:userName sw "b""#))
        #expect(try holds("title pr"))
        #expect(try !holds("nickname pr", on: json(#"{"userName":"x","nickName":""}"#)))
        #expect(try holds(#"meta.lastModified gt "2011-05-13T04:42:33Z""#))
        #expect(try holds(#"meta.lastModified ge "2011-05-13T04:42:34Z""#))
        #expect(try !holds(#"meta.lastModified lt "2011-05-13T04:42:34Z""#))
        #expect(try holds(#"meta.lastModified le "2011-05-13T04:42:34Z""#))
        #expect(try holds(#"title pr and userType eq "Employee""#))
        #expect(try holds(#"title pr or userType eq "Intern""#))
        #expect(try holds(#"schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User""#))
        #expect(try holds(#"userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")"#))
        #expect(try !holds(#"userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")"#))
        #expect(try holds(#"userType eq "Employee" and (emails.type eq "work")"#))
        #expect(try holds(#"userType eq "Employee" and emails[type eq "work" and value co "@example.com"]"#))
        #expect(try !holds(#"emails[type eq "home" and value co "@example.com"]"#))
        #expect(try !holds(#"emails[type eq "work" and value co "@example.com"] and ims[type eq "xmpp" and value co "@foo.com"]"#))
    }

    /// Multi-valued attributes match when any value does; a complex one without sub-attribute
    /// compares `value`.
    @Test func multiValuedAttributesMatchAnyValue() throws {
        #expect(try holds(#"emails co "jensen.org""#))
        #expect(try holds(#"emails eq "BABS@JENSEN.ORG""#))
        #expect(try holds(#"emails.type eq "home""#))
        #expect(try holds(#"phoneNumbers[type eq "mobile"]"#))
        #expect(try holds("emails pr"))
        #expect(try !holds("ims pr"))
        #expect(try holds(#"emails ne "nobody@example.com""#))
        #expect(try !holds(#"emails ne "babs@jensen.org""#))
        #expect(try holds("emails.primary eq true"))
    }

    /// `id` and `externalId` are caseExact (RFC 7643 §3.1); other strings are not.
    @Test func caseExactAttributesCompareExactly() throws {
        #expect(try holds(#"id eq "2819c223-7f76-453a-919d-413861904646""#))
        #expect(try !holds(#"id eq "2819C223-7F76-453A-919D-413861904646""#))
        #expect(try holds(#"externalId eq "701984""#))
        #expect(try holds(#"displayName eq "BABS JENSEN""#))
        #expect(try holds(#"DISPLAYNAME eq "babs jensen""#))  // names are case-insensitive
    }

    /// Booleans: eq and ne only; numbers numerically.
    @Test func booleansAndNumbers() throws {
        #expect(try holds("active eq true"))
        #expect(try holds("active ne false"))
        #expect(try !holds("active gt false"))
        #expect(try !holds(#"active eq "true""#))
        let counted = try json(#"{"count": 3, "ratio": 0.5}"#)
        #expect(try holds("count gt 2.5", on: counted))
        #expect(try holds("count eq 3.0", on: counted))
        #expect(try holds("ratio le 0.5", on: counted))
        #expect(try !holds("count lt 3", on: counted))
        #expect(try holds("missing eq null", on: counted))
        #expect(try holds("count ne null", on: counted))
    }

    /// Extension attributes live under the extension's URI; paths may name it or not.
    @Test func extensionAttributes() throws {
        #expect(try holds(#"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "701984""#))
        #expect(try holds(#"employeeNumber eq "701984""#))
        #expect(try holds(#"department sw "tour""#))
        #expect(try holds(#"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "26118915-6090-4610-87e4-49d8ca9f808d""#))
        #expect(try holds(#"manager.displayName eq "john smith""#))
        #expect(try !holds(#"employeeNumber eq "1""#))
    }

    @Test func groupsMembers() throws {
        #expect(try holds(#"members[value eq "2819c223-7f76-453a-919d-413861904646"]"#, on: tourGuides, schema: .group))
        #expect(try holds(#"members eq "2819c223-7f76-453a-919d-413861904646""#, on: tourGuides, schema: .group))
        #expect(try !holds(#"members.value eq "x""#, on: tourGuides, schema: .group))
        #expect(try holds(#"displayName eq "tour guides""#, on: tourGuides, schema: .group))
    }
}
