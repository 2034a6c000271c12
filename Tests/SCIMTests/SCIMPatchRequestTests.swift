import SCIM
import Testing

/// Reading a PATCH body and its paths (RFC 7644 §3.5.2).
@Suite struct SCIMPatchRequestTests {
    @Test func readsPaths() throws {
        #expect(try SCIMPatchPath(parsing: "members") == SCIMPatchPath(attribute: SCIMAttributePath(attribute: "members")))
        #expect(try SCIMPatchPath(parsing: "name.familyName") == SCIMPatchPath(attribute: SCIMAttributePath(attribute: "name", subAttribute: "familyName")))
        let work = SCIMFilter.compare(SCIMAttributePath(attribute: "type"), .eq, .string("work"))
        #expect(try SCIMPatchPath(parsing: #"emails[type eq "work"].value"#)
            == SCIMPatchPath(attribute: SCIMAttributePath(attribute: "emails"), filter: work, subAttribute: "value"))
        #expect(try SCIMPatchPath(parsing: #"members[value eq "2819c223-7f76-453a-919d-413861904646"]"#).filter
            == .compare(SCIMAttributePath(attribute: "value"), .eq, .string("2819c223-7f76-453a-919d-413861904646")))
        let uri = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value"
        #expect(try SCIMPatchPath(parsing: uri).attribute == SCIMAttributePath(schema: SCIMSchemaURI.enterpriseUser, attribute: "manager", subAttribute: "value"))
        for text in [#"emails[type eq "work"].value"#, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber", #"addresses[type eq "work" and primary eq true]"#] {
            #expect(try SCIMPatchPath(parsing: text).description == text)
        }
    }

    @Test func rejectsBadPaths() {
        let cases: [(String, String)] = [
            ("", "character 1"),
            ("emails[", "character 8"),
            (#"emails[type eq "work""#, "expected ']'"),
            (#"emails[type eq "work"]value"#, "character 23"),
            (#"emails[type eq "work"].value.x"#, "character 24"),
            (#"name.givenName[type eq "x"]"#, "character 15"),
        ]
        for (text, fragment) in cases {
            let error = scimError { () throws(SCIMError) in try SCIMPatchPath(parsing: text) }
            #expect(error?.scimType == .invalidPath, "\(text)")
            #expect(error?.detail.contains(fragment) == true, "\(text): \(error?.detail ?? "no error")")
        }
    }

    /// `op` is read ignoring case; `Operations` too.
    @Test func readsOperations() throws {
        let request = try SCIMPatchRequest(body: json(#"""
            {"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
             "operations":[{"op":"Replace","path":"active","value":"False"},{"op":"ADD","value":{"title":"x"}},{"op":"remove","path":"title"}]}
            """#))
        #expect(request.operations.map(\.op) == [.replace, .add, .remove])
        #expect(request.operations[0].path == (try SCIMPatchPath(parsing: "active")))
        #expect(request.operations[0].value == .string("False"))
        #expect(request.operations[2].value == nil)
    }

    /// Each malformed body gives the error RFC 7644 §3.5.2 and §3.12 name.
    @Test func rejectsBadBodies() throws {
        let cases: [(String, SCIMError.Kind, String)] = [
            (#"[]"#, .invalidSyntax, "JSON object"),
            (#"{"Operations":[{"op":"add","value":{}}]}"#, .invalidSyntax, "PatchOp"),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"]}"#, .invalidSyntax, "'Operations'"),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[]}"#, .invalidValue, "at least one"),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"move","path":"a"}]}"#, .invalidValue, #""move""#),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"path":"a"}]}"#, .invalidSyntax, "'op'"),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","value":1},{"op":"Remove"}]}"#, .noTarget, "operation 2"),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"title"}]}"#, .invalidValue, "no 'value'"),
            (#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"a b","value":1}]}"#, .invalidPath, "character 2"),
        ]
        for (text, kind, fragment) in cases {
            let body = try json(text)
            let error = scimError { () throws(SCIMError) in try SCIMPatchRequest(body: body) }
            #expect(error?.scimType == kind, "\(text)")
            #expect(error?.status == 400)
            #expect(error?.detail.contains(fragment) == true, "\(text): \(error?.detail ?? "no error")")
        }
    }

    /// Errors while applying name the operation, the attribute and what is accepted.
    @Test func applyingErrors() throws {
        let cases: [(String, SCIMError.Kind, String)] = [
            (#"[{"op":"add","path":"groups","value":[{"value":"g"}]}]"#, .mutability, "'groups' is readOnly"),
            (#"[{"op":"replace","path":"meta.created","value":"2020-01-01T00:00:00Z"}]"#, .mutability, "'meta' is readOnly"),
            (#"[{"op":"replace","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.displayName","value":"x"}]"#, .mutability, "manager.displayName"),
            (#"[{"op":"replace","path":"userName","value":42}]"#, .invalidValue, "'userName' must be a string"),
            (#"[{"op":"replace","path":"name","value":"Ada"}]"#, .invalidValue, "'name' must be an object"),
            (#"[{"op":"remove","path":"userName"}]"#, .invalidValue, "'userName' is required"),
            (#"[{"op":"replace","path":"userName","value":null}]"#, .invalidValue, "'userName' is required"),
            (#"[{"op":"replace","value":"x"}]"#, .invalidValue, "must be an object"),
            (#"[{"op":"replace","path":"title[value eq \"x\"]","value":"y"}]"#, .invalidPath, "not multi-valued"),
            (#"[{"op":"replace","path":"emails[type eq \"fax\"]","value":{"value":"x"}}]"#, .noTarget, "no value of 'emails'"),
            (#"[{"op":"add","value":{"bad key":1}}]"#, .invalidPath, "\"bad key\""),
        ]
        for (operations, kind, fragment) in cases {
            let error = try patchError(barbara, operations)
            #expect(error?.scimType == kind, "\(operations)")
            #expect(error?.detail.contains(fragment) == true, "\(operations): \(error?.detail ?? "no error")")
            #expect(error?.detail.contains("operation 1") == true)
        }
        // Immutable: a group member's value cannot change once set.
        let immutable = try patchError(tourGuides, #"[{"op":"replace","path":"members[value eq \"2819c223-7f76-453a-919d-413861904646\"].value","value":"other"}]"#, schema: .group)
        #expect(immutable?.scimType == .mutability)
        #expect(immutable?.detail.contains("members.value") == true)
    }
}
