import SCIM
import Testing

/// RFC 7644 §3.4.2.2's filter grammar (Figure 1).
@Suite struct SCIMFilterParsingTests {
    /// Every example filter of RFC 7644 §3.4.2.2 (after Table 3).
    static let rfcExamples = [
        #"userName eq "bjensen""#,
        #"name.familyName co "O'Malley""#,
        #"userName sw "J""#,
        #"urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J""#,
        #"title pr"#,
        #"meta.lastModified gt "2011-05-13T04:42:34Z""#,
        #"meta.lastModified ge "2011-05-13T04:42:34Z""#,
        #"meta.lastModified lt "2011-05-13T04:42:34Z""#,
        #"meta.lastModified le "2011-05-13T04:42:34Z""#,
        #"title pr and userType eq "Employee""#,
        #"title pr or userType eq "Intern""#,
        #"schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User""#,
        #"userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")"#,
        #"userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")"#,
        #"userType eq "Employee" and (emails.type eq "work")"#,
        #"userType eq "Employee" and emails[type eq "work" and value co "@example.com"]"#,
        #"emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]"#,
    ]

    @Test(arguments: rfcExamples) func parsesRFCExample(_ text: String) throws {
        let filter = try SCIMFilter(parsing: text)
        #expect(try SCIMFilter(parsing: filter.description) == filter)
    }

    @Test func readsTheStructure() throws {
        let userName = SCIMAttributePath(attribute: "userName")
        #expect(try SCIMFilter(parsing: #"userName eq "bjensen""#) == .compare(userName, .eq, .string("bjensen")))
        #expect(try SCIMFilter(parsing: "title pr") == .present(SCIMAttributePath(attribute: "title")))
        #expect(try SCIMFilter(parsing: #"emails[type eq "work" and value co "@example.com"]"#)
            == .valuePath(SCIMAttributePath(attribute: "emails"),
                          .and(.compare(SCIMAttributePath(attribute: "type"), .eq, .string("work")),
                               .compare(SCIMAttributePath(attribute: "value"), .co, .string("@example.com")))))
        // §3.4.2.2: "and" binds tighter than "or".
        #expect(try SCIMFilter(parsing: "a pr or b pr and c pr")
            == .or(.present(SCIMAttributePath(attribute: "a")), .and(.present(SCIMAttributePath(attribute: "b")), .present(SCIMAttributePath(attribute: "c")))))
        #expect(try SCIMFilter(parsing: "a pr and b pr or c pr")
            == .or(.and(.present(SCIMAttributePath(attribute: "a")), .present(SCIMAttributePath(attribute: "b"))), .present(SCIMAttributePath(attribute: "c"))))
    }

    /// Operators and keywords are ABNF strings, so case-insensitive; one or more spaces are a
    /// separator; values are JSON's.
    @Test func readsCaseSpacesAndJSONValues() throws {
        #expect(try SCIMFilter(parsing: #"userName EQ "x" And  title   Pr"#) == SCIMFilter(parsing: #"userName eq "x" and title pr"#))
        #expect(try SCIMFilter(parsing: "NOT(title pr)") == .not(.present(SCIMAttributePath(attribute: "title"))))
        let path = SCIMAttributePath(attribute: "a")
        #expect(try SCIMFilter(parsing: "a eq True") == .compare(path, .eq, .bool(true)))
        #expect(try SCIMFilter(parsing: "a eq false") == .compare(path, .eq, .bool(false)))
        #expect(try SCIMFilter(parsing: "a eq null") == .compare(path, .eq, .null))
        #expect(try SCIMFilter(parsing: "a gt -12") == .compare(path, .gt, .integer(-12)))
        #expect(try SCIMFilter(parsing: "a lt 1.5e3") == .compare(path, .lt, .decimal(1500)))
        #expect(try SCIMFilter(parsing: #"a eq "q\"uote\\ \u00e9 \ud83d\ude00 \n""#) == .compare(path, .eq, .string("q\"uote\\ é 😀 \n")))
    }

    /// Errors are `invalidFilter` (RFC 7644 §3.12, Table 9) and name the position.
    @Test func rejectsMalformedFilters() {
        let cases: [(String, String)] = [
            ("", "character 1"),
            ("userName", "character 9"),
            ("userName eq", "character 12"),
            (#"userName xx "a""#, "'xx' at character 10"),
            (#"userName eq bjensen"#, "'bjensen' at character 13"),
            (#"userName eq "open"#, "not closed"),
            (#"userName eq "a" and"#, "found the end at character 20"),
            (#"(userName pr"#, "expected ')'"),
            (#"emails[type eq "work""#, "expected ']'"),
            (#"emails[type[value pr] pr]"#, "another '['"),
            (#"userName eq 01"#, "cannot start with 0"),
            (#"userName eq "\x""#, "not a JSON escape"),
            (#"userName eq "a" extra"#, "expected 'and', 'or' or the end"),
            (#"user$ eq "a""#, "character 5"),
        ]
        for (text, fragment) in cases {
            let error = scimError { () throws(SCIMError) in try SCIMFilter(parsing: text) }
            #expect(error?.scimType == .invalidFilter, "\(text)")
            #expect(error?.detail.contains(fragment) == true, "\(text): \(error?.detail ?? "no error")")
        }
    }

    /// Hostile input: nesting is bounded, and so is length.
    @Test func boundsNestingAndLength() throws {
        let deep = String(repeating: "(", count: SCIMFilter.maximumDepth) + "a pr" + String(repeating: ")", count: SCIMFilter.maximumDepth)
        #expect(try SCIMFilter(parsing: deep) == .present(SCIMAttributePath(attribute: "a")))
        let tooDeep = "(" + deep + ")"
        #expect(scimError { () throws(SCIMError) in try SCIMFilter(parsing: tooDeep) }?.detail.contains("nesting deeper") == true)
        let notNot = String(repeating: "not (", count: 100_000) + "a pr" + String(repeating: ")", count: 100_000)
        #expect(scimError { () throws(SCIMError) in try SCIMFilter(parsing: notNot) }?.scimType == .invalidFilter)
        let long = Array(repeating: "a pr", count: 1000).joined(separator: " and ")
        #expect(scimError { () throws(SCIMError) in try SCIMFilter(parsing: long) }?.detail.contains("at most \(SCIMFilter.maximumLength)") == true)
    }
}
