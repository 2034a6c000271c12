import SCIM
import Testing

/// The PATCH requests Microsoft Entra ID sends, as Microsoft's "Tutorial: Develop and plan
/// provisioning for a SCIM endpoint in Microsoft Entra ID" shows them
/// (https://learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups):
/// `op` capitalised, booleans as strings, members added and removed by value, extension
/// attributes as full paths in a path-less value.
@Suite struct SCIMPatchEntraTests {
    /// "Update User [Multi-valued properties]": replace a work email's value and the family name.
    @Test func replaceMultiValuedProperties() throws {
        let updated = try patched(barbara, #"""
            [{"op":"Replace","path":"emails[type eq \"work\"].value","value":"updatedEmail@microsoft.com"},
             {"op":"Replace","path":"name.familyName","value":"updatedFamilyName"}]
            """#)
        #expect(updated.member("emails")?.arrayValue?.first == (try json(#"{"value":"updatedEmail@microsoft.com","type":"work","primary":true}"#)))
        #expect(updated.member("name")?.member("familyName") == .string("updatedFamilyName"))
        #expect(updated.member("name")?.member("givenName") == .string("Barbara"))
    }

    /// Entra ID's behaviour: a work email set by filter when the user has none is added.
    @Test func workEmailIsAddedWhenMissing() throws {
        let user = try json(#"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"Test_User_dfeef4c5","active":true}"#)
        for op in ["Replace", "Add"] {
            let updated = try patched(user, #"[{"op":"\#(op)","path":"emails[type eq \"work\"].value","value":"updatedEmail@microsoft.com"}]"#)
            #expect(updated.member("emails") == .array([try json(#"{"type":"work","value":"updatedEmail@microsoft.com"}"#)]))
        }
    }

    /// "Disable User": `{"op":"Replace","path":"active","value":"False"}`.
    @Test func disableUserWithStringBoolean() throws {
        let disabled = try patched(barbara, #"[{"op":"Replace","path":"active","value":"False"}]"#)
        #expect(disabled.member("active") == .bool(false))
        let enabled = try patched(disabled, #"[{"op":"replace","value":{"active":"TRUE"}}]"#)
        #expect(enabled.member("active") == .bool(true))
        let error = try patchError(barbara, #"[{"op":"Replace","path":"active","value":"nope"}]"#)
        #expect(error?.scimType == .invalidValue)
        #expect(error?.detail.contains("'active'") == true)
        #expect(error?.detail.contains("boolean") == true)
    }

    /// "Update Group [Add Members]" and "[Remove Members]".
    @Test func addAndRemoveMembers() throws {
        let group = try json(#"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"id":"40734ae655284ad3abcc","displayName":"Group1"}"#)
        let added = try patched(group, #"[{"op":"Add","path":"members","value":[{"$ref":null,"value":"f648f8d5ea4e4cd38e9c"}]}]"#, schema: .group)
        #expect(added.member("members") == .array([try json(#"{"value":"f648f8d5ea4e4cd38e9c"}"#)]))
        let again = try patched(added, #"[{"op":"Add","path":"members","value":[{"$ref":null,"value":"f648f8d5ea4e4cd38e9c"}]}]"#, schema: .group)
        #expect(again == added)
        let removed = try patched(added, #"[{"op":"Remove","path":"members","value":[{"$ref":null,"value":"f648f8d5ea4e4cd38e9c"}]}]"#, schema: .group)
        #expect(removed.member("members") == nil)
        #expect(removed.member("displayName") == .string("Group1"))
    }

    /// Extension attributes sent as whole paths in a path-less replace.
    @Test func extensionAttributeAsFullPath() throws {
        let user = try json(#"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ada"}"#)
        let updated = try patched(user, #"[{"op":"Replace","value":{"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber":"12345"}}]"#)
        #expect(updated.member(SCIMSchemaURI.enterpriseUser)?.member("employeeNumber") == .string("12345"))
        #expect(updated.member("schemas")?.arrayValue?.contains(.string(SCIMSchemaURI.enterpriseUser)) == true)
        let again = try patched(barbara, #"[{"op":"Replace","value":{"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber":"12345","name.givenName":"Babs","displayName":"B"}}]"#)
        #expect(again.member(SCIMSchemaURI.enterpriseUser)?.member("employeeNumber") == .string("12345"))
        #expect(again.member(SCIMSchemaURI.enterpriseUser)?.member("costCenter") == .string("4130"))
        #expect(again.member("name")?.member("givenName") == .string("Babs"))
        #expect(again.member("name")?.member("familyName") == .string("Jensen"))
        #expect(again.member("displayName") == .string("B"))
        // Entra ID sets the manager with its id alone.
        let manager = try patched(user, #"[{"op":"Add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":"26118915"}]"#)
        #expect(manager.member(SCIMSchemaURI.enterpriseUser)?.member("manager") == (try json(#"{"value":"26118915"}"#)))
        // A new manager's id replaces the manager whole, its display name with it.
        let newManager = try patched(barbara, #"[{"op":"Replace","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":"777"}]"#)
        #expect(newManager.member(SCIMSchemaURI.enterpriseUser)?.member("manager") == (try json(#"{"value":"777"}"#)))
    }

    /// Attributes the schema does not declare (a custom extension) are stored as given.
    @Test func unknownAttributesAreKept() throws {
        let user = try json(#"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ada"}"#)
        let updated = try patched(user, #"""
            [{"op":"Add","value":{"urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User:CustomAttribute":"x","favouriteColour":"teal"}},
             {"op":"Replace","path":"urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User:Other","value":7}]
            """#)
        let custom = updated.member("urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User")
        #expect(custom?.member("CustomAttribute") == .string("x"))
        #expect(custom?.member("Other") == .integer(7))
        #expect(updated.member("favouriteColour") == .string("teal"))
    }
}
