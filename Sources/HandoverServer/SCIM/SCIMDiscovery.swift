import SCIM

/// What `/scim/v2` says of itself (RFC 7644 §4): the service provider's configuration (RFC 7643
/// §5), its resource types (§6) and schemas (§7).
enum SCIMDiscovery {
    /// The most resources one list answers (`filter.maxResults`), and the default page.
    static let maxResults = 1000
    static let defaultCount = 100

    static func serviceProviderConfig(base: String) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchemaURI.serviceProviderConfig)]),
            "patch": .object(["supported": .bool(true)]),
            "bulk": .object(["supported": .bool(false), "maxOperations": .integer(0), "maxPayloadSize": .integer(0)]),
            "filter": .object(["supported": .bool(true), "maxResults": .integer(Int64(maxResults))]),
            "changePassword": .object(["supported": .bool(false)]),
            "sort": .object(["supported": .bool(false)]),
            "etag": .object(["supported": .bool(true)]),
            "authenticationSchemes": .array([.object([
                "type": .string("oauthbearertoken"), "name": .string("Bearer token"), "primary": .bool(true),
                "description": .string("The token in HANDOVER_SCIM_TOKEN (or HANDOVER_SCIM_PREVIOUS_TOKEN while it is rotated), as Authorization: Bearer."),
            ])]),
            "meta": .object(["resourceType": .string("ServiceProviderConfig"), "location": .string("\(base)/ServiceProviderConfig")]),
        ])
    }

    static func resourceTypes(base: String) -> [SCIMValue] {
        [
            resourceType("User", endpoint: "/Users", description: "A person of the organisation", schema: SCIMSchemaURI.user,
                         extensions: [SCIMSchemaURI.enterpriseUser], base: base),
            resourceType("Group", endpoint: "/Groups", description: "A group, whose members' dashboard roles follow HANDOVER_ADMIN_ROLE_MAP",
                         schema: SCIMSchemaURI.group, extensions: [], base: base),
        ]
    }

    static func resourceType(_ name: String, endpoint: String, description: String, schema: String, extensions: [String], base: String) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchemaURI.resourceType)]),
            "id": .string(name), "name": .string(name), "endpoint": .string(endpoint), "description": .string(description),
            "schema": .string(schema),
            "schemaExtensions": .array(extensions.map { .object(["schema": .string($0), "required": .bool(false)]) }),
            "meta": .object(["resourceType": .string("ResourceType"), "location": .string("\(base)/ResourceTypes/\(name)")]),
        ])
    }

    static func schemas(base: String) -> [SCIMValue] {
        [SCIMSchema.user, .enterpriseUser, .group].map { $0.representation(base: base) }
    }

    static func listResponse(_ resources: [SCIMValue], total: Int, startIndex: Int) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchemaURI.listResponse)]),
            "totalResults": .integer(Int64(total)), "startIndex": .integer(Int64(startIndex)),
            "itemsPerPage": .integer(Int64(resources.count)), "Resources": .array(resources),
        ])
    }
}
