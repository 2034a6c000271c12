import SCIM
import Testing

/// The schemas as values and their JSON (RFC 7643 §7, §8.7.1).
@Suite struct SCIMSchemaTests {
    @Test func userSchemaHasWhatHandoverKeeps() {
        let names = SCIMSchema.user.attributes.map(\.name)
        #expect(names == ["userName", "name", "displayName", "nickName", "profileUrl", "title", "userType", "preferredLanguage",
                          "locale", "timezone", "active", "emails", "phoneNumbers", "addresses", "groups"])
        for absent in ["password", "ims", "photos", "entitlements", "roles", "x509Certificates"] {
            #expect(SCIMSchema.user.attribute(absent) == nil)
        }
        #expect(SCIMSchema.user.attribute("USERNAME")?.uniqueness == .server)
        #expect(SCIMSchema.user.attribute("userName")?.required == true)
        #expect(SCIMSchema.user.attribute("groups")?.mutability == .readOnly)
        #expect(SCIMSchema.user.attribute("groups")?.subAttribute("$ref")?.referenceTypes == ["User", "Group"])
        #expect(SCIMSchema.user.attribute("phoneNumbers")?.subAttribute("type")?.canonicalValues == ["work", "home", "mobile", "fax", "pager", "other"])
        #expect(SCIMSchema.enterpriseUser.attribute("manager")?.subAttribute("displayName")?.mutability == .readOnly)
        #expect(SCIMSchema.group.attribute("members")?.subAttribute("value")?.mutability == .immutable)
        #expect(SCIMSchema.group.attribute("displayName")?.required == true)
    }

    @Test func resolvesPaths() throws {
        let schema = SCIMResourceSchema.user
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "name.givenName"))?.name == "givenName")
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "employeeNumber"))?.name == "employeeNumber")
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.$ref"))?.type == .reference)
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "urn:ietf:params:scim:schemas:core:2.0:User:emails"))?.multiValued == true)
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "id"))?.returned == .always)
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "externalId"))?.caseExact == true)
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "meta.lastModified"))?.type == .dateTime)
        #expect(schema.attribute(for: try SCIMAttributePath(parsing: "nothing")) == nil)
    }

    /// RFC 7643 §7 / §8.7.1: the schema's JSON.
    @Test func representation() throws {
        let json = SCIMSchema.user.representation(base: "https://example.com/scim/v2/")
        #expect(json.member("id") == .string(SCIMSchemaURI.user))
        #expect(json.member("name") == .string("User"))
        #expect(json.member("meta") == .object(["resourceType": .string("Schema"), "location": .string("https://example.com/scim/v2/Schemas/\(SCIMSchemaURI.user)")]))
        let userName = json.member("attributes")?.arrayValue?.first
        #expect(userName?.member("name") == .string("userName"))
        #expect(userName?.member("type") == .string("string"))
        #expect(userName?.member("multiValued") == .bool(false))
        #expect(userName?.member("required") == .bool(true))
        #expect(userName?.member("caseExact") == .bool(false))
        #expect(userName?.member("mutability") == .string("readWrite"))
        #expect(userName?.member("returned") == .string("default"))
        #expect(userName?.member("uniqueness") == .string("server"))
        #expect(userName?.member("canonicalValues") == nil)
        let emails = json.member("attributes")?.arrayValue?.first { $0.member("name") == .string("emails") }
        let type = emails?.member("subAttributes")?.arrayValue?.first { $0.member("name") == .string("type") }
        #expect(type?.member("canonicalValues") == .array([.string("work"), .string("home"), .string("other")]))
        let groups = json.member("attributes")?.arrayValue?.first { $0.member("name") == .string("groups") }
        let ref = groups?.member("subAttributes")?.arrayValue?.first { $0.member("name") == .string("$ref") }
        #expect(ref?.member("referenceTypes") == .array([.string("User"), .string("Group")]))
        let enterprise = SCIMSchema.enterpriseUser.representation(base: "https://example.com/scim/v2")
        #expect(enterprise.member("meta")?.member("location") == .string("https://example.com/scim/v2/Schemas/\(SCIMSchemaURI.enterpriseUser)"))
        #expect(enterprise.member("attributes")?.arrayValue?.count == 6)
    }

    /// POST and PUT bodies (RFC 7644 §3.3): readOnly dropped, strings coerced, types checked.
    @Test func normalizesBodies() throws {
        let body = try json(#"""
            {"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
             "id":"client-chosen","meta":{"resourceType":"User"},"userName":"ada","active":"False",
             "groups":[{"value":"g"}],"favourite":"teal",
             "emails":[{"value":"a@x","primary":"true"},{"value":"b@x","primary":true}],
             "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"7","manager":{"value":"m","displayName":"Boss"}}}
            """#)
        let normalized = try SCIMResourceSchema.user.normalized(body)
        #expect(normalized.member("id") == nil)
        #expect(normalized.member("meta") == nil)
        #expect(normalized.member("groups") == nil)
        #expect(normalized.member("active") == .bool(false))
        #expect(normalized.member("favourite") == .string("teal"))
        #expect(normalized.member("schemas") == body.member("schemas"))
        #expect(normalized.member("emails") == .array([.object(["value": .string("a@x")]), .object(["value": .string("b@x"), "primary": .bool(true)])]))
        #expect(normalized.member(SCIMSchemaURI.enterpriseUser)?.member("manager") == .object(["value": .string("m")]))

        let cases: [(String, SCIMError.Kind, String)] = [
            (#"{"displayName":"no user name"}"#, .invalidValue, "'userName' is required"),
            (#"{"userName":""}"#, .invalidValue, "'userName' is required"),
            (#"{"userName":"a","active":"yes"}"#, .invalidValue, "'active' must be a boolean"),
            (#"{"userName":"a","emails":[{"value":1}]}"#, .invalidValue, "'emails.value' must be a string"),
            (#"{"userName":"a","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":"x"}"#, .invalidValue, "must be an object"),
            (#"{"userName":"a","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":7}}"#, .invalidValue, "employeeNumber' must be a string"),
            (#""ada""#, .invalidSyntax, "JSON object"),
        ]
        for (text, kind, fragment) in cases {
            let resource = try json(text)
            let error = scimError { () throws(SCIMError) in try SCIMResourceSchema.user.normalized(resource) }
            #expect(error?.scimType == kind, "\(text)")
            #expect(error?.detail.contains(fragment) == true, "\(text): \(error?.detail ?? "no error")")
        }
        let group = try json(#"{"members":[]}"#)
        #expect(scimError { () throws(SCIMError) in try SCIMResourceSchema.group.normalized(group) }?.detail.contains("'displayName' is required") == true)
    }

    /// RFC 7644 §3.9: `attributes` and `excludedAttributes`.
    @Test func projects() throws {
        let schema = SCIMResourceSchema.user
        let only = schema.projected(barbara, attributes: try SCIMAttributePath.list(parsing: "userName,name.givenName,emails.value,employeeNumber"), excludedAttributes: [])
        #expect(only == .object([
            "schemas": barbara.member("schemas") ?? .null,
            "id": .string("2819c223-7f76-453a-919d-413861904646"),
            "userName": .string("bjensen@example.com"),
            "name": .object(["givenName": .string("Barbara")]),
            "emails": .array([.object(["value": .string("bjensen@example.com")]), .object(["value": .string("babs@jensen.org")])]),
            SCIMSchemaURI.enterpriseUser: .object(["employeeNumber": .string("701984")]),
        ]))
        let whole = schema.projected(barbara, attributes: [try SCIMAttributePath(parsing: SCIMSchemaURI.enterpriseUser)], excludedAttributes: [])
        #expect(whole.member(SCIMSchemaURI.enterpriseUser) == barbara.member(SCIMSchemaURI.enterpriseUser))
        #expect(whole.member("userName") == nil)

        let excluded = schema.projected(barbara, attributes: [], excludedAttributes: try SCIMAttributePath.list(parsing: "id,schemas,emails,name.givenName,urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager,meta"))
        #expect(excluded.member("id") != nil)
        #expect(excluded.member("schemas") != nil)
        #expect(excluded.member("emails") == nil)
        #expect(excluded.member("meta") == nil)
        #expect(excluded.member("name")?.member("givenName") == nil)
        #expect(excluded.member("name")?.member("familyName") == .string("Jensen"))
        #expect(excluded.member(SCIMSchemaURI.enterpriseUser)?.member("manager") == nil)
        #expect(excluded.member(SCIMSchemaURI.enterpriseUser)?.member("department") == .string("Tour Operations"))
        #expect(excluded.member("userName") == barbara.member("userName"))

        #expect(schema.projected(barbara, attributes: [], excludedAttributes: []) == barbara)
    }
}
