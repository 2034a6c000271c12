import SCIM
import Testing

/// The PATCH requests Okta sends ("SCIM 2.0 Protocol Reference", developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20).
@Suite struct SCIMPatchOktaTests {
    /// Okta renames a group with its `id` in the value ("SCIM 2.0 Protocol Reference", Update a
    /// specific Group name): the unchanged readOnly `id` is not a change; a changed one is refused.
    @Test func oktaGroupRenameWithItsID() throws {
        let renamed = try patched(tourGuides, #"[{"op":"replace","value":{"id":"e9e30dba-f08f-4109-8486-d5c6a331660a","displayName":"Guides"}}]"#, schema: .group)
        #expect(renamed.member("displayName") == .string("Guides"))
        #expect(renamed.member("id") == tourGuides.member("id"))
        let error = try patchError(tourGuides, #"[{"op":"replace","value":{"id":"other","displayName":"Guides"}}]"#, schema: .group)
        #expect(error?.scimType == .mutability)
        #expect(error?.detail.contains("'id' is readOnly") == true)
    }

    /// Okta deactivates a user with a path-less replace of `active`.
    @Test func oktaDeactivation() throws {
        let deactivated = try patched(barbara, #"[{"op":"replace","value":{"active":false}}]"#)
        #expect(deactivated.member("active") == .bool(false))
    }
}
