/// The schema URIs of RFC 7643 and RFC 7644 that Handover reads and writes.
public enum SCIMSchemaURI {
    public static let user = "urn:ietf:params:scim:schemas:core:2.0:User"
    public static let group = "urn:ietf:params:scim:schemas:core:2.0:Group"
    /// RFC 7643 §4.3.
    public static let enterpriseUser = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
    public static let listResponse = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
    public static let patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
    public static let searchRequest = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"
    public static let error = "urn:ietf:params:scim:api:messages:2.0:Error"
    public static let serviceProviderConfig = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
    public static let resourceType = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
    public static let schema = "urn:ietf:params:scim:schemas:core:2.0:Schema"
}
