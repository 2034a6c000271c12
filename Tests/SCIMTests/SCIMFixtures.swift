import Foundation
import SCIM

/// JSON text as a ``SCIMValue``.
func json(_ text: String) throws -> SCIMValue {
    try JSONDecoder().decode(SCIMValue.self, from: Data(text.utf8))
}

/// The error a throwing call throws, when it throws a ``SCIMError``.
func scimError<T>(_ body: () throws(SCIMError) -> T) -> SCIMError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// A PATCH body of these operations (JSON text of the array).
func patchBody(_ operations: String) throws -> SCIMValue {
    try json(#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":\#(operations)}"#)
}

/// Applies a PATCH (its operations' JSON) to a resource.
func patched(_ resource: SCIMValue, _ operations: String, schema: SCIMResourceSchema = .user) throws -> SCIMValue {
    try SCIMPatchRequest(body: try patchBody(operations)).apply(to: resource, schema: schema)
}

/// RFC 7643 §8.2's full User (Barbara Jensen), less what Handover does not keep, with the
/// enterprise extension of §8.3.
let barbara: SCIMValue = {
    let text = #"""
    {
      "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      "id": "2819c223-7f76-453a-919d-413861904646",
      "externalId": "701984",
      "userName": "bjensen@example.com",
      "name": {"formatted": "Ms. Barbara J Jensen, III", "familyName": "Jensen", "givenName": "Barbara",
               "middleName": "Jane", "honorificPrefix": "Ms.", "honorificSuffix": "III"},
      "displayName": "Babs Jensen",
      "nickName": "Babs",
      "profileUrl": "https://login.example.com/bjensen",
      "emails": [{"value": "bjensen@example.com", "type": "work", "primary": true},
                 {"value": "babs@jensen.org", "type": "home"}],
      "addresses": [{"type": "work", "streetAddress": "100 Universal City Plaza", "locality": "Hollywood",
                     "region": "CA", "postalCode": "91608", "country": "USA", "primary": true}],
      "phoneNumbers": [{"value": "555-555-5555", "type": "work"}, {"value": "555-555-4444", "type": "mobile"}],
      "userType": "Employee",
      "title": "Tour Guide",
      "preferredLanguage": "en-US",
      "locale": "en-US",
      "timezone": "America/Los_Angeles",
      "active": true,
      "groups": [{"value": "e9e30dba-f08f-4109-8486-d5c6a331660a", "display": "Tour Guides", "type": "direct"}],
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {
        "employeeNumber": "701984", "costCenter": "4130", "organization": "Universal Studios",
        "division": "Theme Park", "department": "Tour Operations",
        "manager": {"value": "26118915-6090-4610-87e4-49d8ca9f808d", "displayName": "John Smith"}
      },
      "meta": {"resourceType": "User", "created": "2010-01-23T04:56:22Z", "lastModified": "2011-05-13T04:42:34Z",
               "version": "W/\"3694e05e9dff591\"", "location": "https://example.com/v2/Users/2819c223-7f76-453a-919d-413861904646"}
    }
    """#
    return (try? json(text)) ?? .null
}()

/// RFC 7644 §3.5.2's group (Tour Guides) with one member.
let tourGuides: SCIMValue = {
    let text = #"""
    {
      "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      "id": "e9e30dba-f08f-4109-8486-d5c6a331660a",
      "displayName": "Tour Guides",
      "members": [{"value": "2819c223-7f76-453a-919d-413861904646", "display": "Babs Jensen", "$ref": "https://example.com/v2/Users/2819c223-7f76-453a-919d-413861904646"}]
    }
    """#
    return (try? json(text)) ?? .null
}()

/// The error applying a PATCH (its operations' JSON) throws, if any.
func patchError(_ resource: SCIMValue, _ operations: String, schema: SCIMResourceSchema = .user) throws -> SCIMError? {
    let body = try patchBody(operations)
    return scimError { () throws(SCIMError) in try SCIMPatchRequest(body: body).apply(to: resource, schema: schema) }
}
