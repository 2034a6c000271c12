import SCIM
import Testing

/// RFC 7644 §3.10: `attrPath = [URI ":"] ATTRNAME *1subAttr`.
@Suite struct SCIMAttributePathTests {
    @Test func readsNamesSubAttributesAndURIs() throws {
        #expect(try SCIMAttributePath(parsing: "userName") == SCIMAttributePath(attribute: "userName"))
        #expect(try SCIMAttributePath(parsing: "name.givenName") == SCIMAttributePath(attribute: "name", subAttribute: "givenName"))
        #expect(try SCIMAttributePath(parsing: "members.$ref") == SCIMAttributePath(attribute: "members", subAttribute: "$ref"))
        #expect(try SCIMAttributePath(parsing: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber")
            == SCIMAttributePath(schema: SCIMSchemaURI.enterpriseUser, attribute: "employeeNumber"))
        #expect(try SCIMAttributePath(parsing: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value")
            == SCIMAttributePath(schema: SCIMSchemaURI.enterpriseUser, attribute: "manager", subAttribute: "value"))
        #expect(try SCIMAttributePath(parsing: "urn:ietf:params:scim:schemas:core:2.0:User:userName")
            == SCIMAttributePath(schema: SCIMSchemaURI.user, attribute: "userName"))
        #expect(try SCIMAttributePath(parsing: "x-_9") == SCIMAttributePath(attribute: "x-_9"))
    }

    @Test func printsWhatItReads() throws {
        for text in ["userName", "name.givenName", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value", "groups.$ref"] {
            #expect(try SCIMAttributePath(parsing: text).description == text)
        }
    }

    /// Errors name the character and what is accepted.
    @Test func rejectsWhatIsNotAName() {
        let cases: [(String, String)] = [
            ("", "character 1"),
            ("9lives", "character 1"),
            ("user Name", "character 5"),
            ("name.", "character 6"),
            ("name.given.x", "character 11"),
            (":userName", "character 1"),
            ("urn:x:", "character 7"),
            ("emails[type eq \"work\"]", "character 7"),
        ]
        for (text, position) in cases {
            let error = scimError { () throws(SCIMError) in try SCIMAttributePath(parsing: text) }
            #expect(error?.scimType == .invalidPath, "\(text)")
            #expect(error?.status == 400)
            #expect(error?.detail.contains(position) == true, "\(text): \(error?.detail ?? "no error")")
            #expect(error?.detail.contains("RFC 7644 §3.10") == true)
        }
    }

    /// RFC 7644 §3.4.2.5: `attributes` is a comma-separated list.
    @Test func readsAttributeLists() throws {
        #expect(try SCIMAttributePath.list(parsing: "userName, name.givenName,,urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department")
            == [SCIMAttributePath(attribute: "userName"), SCIMAttributePath(attribute: "name", subAttribute: "givenName"),
                SCIMAttributePath(schema: SCIMSchemaURI.enterpriseUser, attribute: "department")])
        #expect(try SCIMAttributePath.list(parsing: "") == [])
        let error = scimError { () throws(SCIMError) in try SCIMAttributePath.list(parsing: "userName,display name") }
        #expect(error?.scimType == .invalidValue)
        #expect(error?.detail.contains("display name") == true)
    }

    /// A path as long as a request may carry is refused before it is read (as filters and PATCH
    /// paths are), so the positions its errors name are bounded too.
    @Test func refusesAPathLongerThanAFilterMayBe() {
        let long = String(repeating: "a", count: SCIMFilter.maximumLength + 1)
        let error = scimError { () throws(SCIMError) in try SCIMAttributePath(parsing: long) }
        #expect(error?.scimType == .invalidPath)
        #expect(error?.detail.contains("at most \(SCIMFilter.maximumLength)") == true)
        #expect(scimError { () throws(SCIMError) in try SCIMAttributePath.list(parsing: "userName," + long) }?.scimType == .invalidValue)
    }
}
