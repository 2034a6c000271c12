/// The schemas Handover serves (RFC 7643 §4 and §8.7.1), as values.
extension SCIMSchema {
    /// A string attribute with RFC 7643 §2.2's defaults.
    static func text(_ name: String, _ description: String, required: Bool = false, caseExact: Bool = false,
                     mutability: SCIMAttribute.Mutability = .readWrite, uniqueness: SCIMAttribute.Uniqueness = .none,
                     canonicalValues: [String] = []) -> SCIMAttribute {
        SCIMAttribute(name: name, type: .string, description: description, required: required, caseExact: caseExact,
                      mutability: mutability, uniqueness: uniqueness, canonicalValues: canonicalValues)
    }

    static func primary(_ what: String) -> SCIMAttribute {
        SCIMAttribute(name: "primary", type: .boolean,
                      description: "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the preferred \(what). The primary attribute value 'true' MUST appear no more than once.")
    }

    /// The attributes every resource has (RFC 7643 §3.1), not part of any schema: `id`
    /// (readOnly, returned always, caseExact), `externalId` (readWrite, caseExact) and `meta`
    /// (readOnly).
    public static let commonAttributes: [SCIMAttribute] = [
        SCIMAttribute(name: "id", type: .string, description: "A unique identifier for a SCIM resource as defined by the service provider.",
                      caseExact: true, mutability: .readOnly, returned: .always, uniqueness: .server),
        SCIMAttribute(name: "externalId", type: .string, description: "A String that is an identifier for the resource as defined by the provisioning client.",
                      caseExact: true),
        SCIMAttribute(name: "meta", type: .complex, description: "A complex attribute containing resource metadata.", mutability: .readOnly, subAttributes: [
            SCIMAttribute(name: "resourceType", type: .string, description: "The name of the resource type of the resource.", caseExact: true, mutability: .readOnly),
            SCIMAttribute(name: "created", type: .dateTime, description: "The \"DateTime\" that the resource was added to the service provider.", mutability: .readOnly),
            SCIMAttribute(name: "lastModified", type: .dateTime, description: "The most recent DateTime that the details of this resource were updated at the service provider.", mutability: .readOnly),
            SCIMAttribute(name: "location", type: .reference, description: "The URI of the resource being returned.", caseExact: true, mutability: .readOnly, referenceTypes: ["uri"]),
            SCIMAttribute(name: "version", type: .string, description: "The version of the resource being returned.", caseExact: true, mutability: .readOnly),
        ]),
    ]

    /// RFC 7643 §4.1 / §8.7.1's User schema, without the attributes Handover does not keep
    /// (password, ims, photos, entitlements, roles, x509Certificates).
    public static let user = SCIMSchema(id: SCIMSchemaURI.user, name: "User", description: "User Account", attributes: [
        text("userName", "Unique identifier for the User, typically used by the user to directly authenticate to the service provider. Each User MUST include a non-empty userName value. This identifier MUST be unique across the service provider's entire set of Users. REQUIRED.",
             required: true, uniqueness: .server),
        SCIMAttribute(name: "name", type: .complex, description: "The components of the user's real name.", subAttributes: [
            text("formatted", "The full name, including all middle names, titles, and suffixes as appropriate, formatted for display (e.g., 'Ms. Barbara J Jensen, III')."),
            text("familyName", "The family name of the User, or last name in most Western languages (e.g., 'Jensen' given the full name 'Ms. Barbara J Jensen, III')."),
            text("givenName", "The given name of the User, or first name in most Western languages (e.g., 'Barbara' given the full name 'Ms. Barbara J Jensen, III')."),
            text("middleName", "The middle name(s) of the User (e.g., 'Jane' given the full name 'Ms. Barbara J Jensen, III')."),
            text("honorificPrefix", "The honorific prefix(es) of the User, or title in most Western languages (e.g., 'Ms.' given the full name 'Ms. Barbara J Jensen, III')."),
            text("honorificSuffix", "The honorific suffix(es) of the User, or suffix in most Western languages (e.g., 'III' given the full name 'Ms. Barbara J Jensen, III')."),
        ]),
        text("displayName", "The name of the User, suitable for display to end-users. The name SHOULD be the full name of the User being described, if known."),
        text("nickName", "The casual way to address the user in real life, e.g., 'Bob' or 'Bobby' instead of 'Robert'."),
        SCIMAttribute(name: "profileUrl", type: .reference, description: "A fully qualified URL pointing to a page representing the User's online profile.", referenceTypes: ["external"]),
        text("title", "The user's title, such as \"Vice President.\""),
        text("userType", "Used to identify the relationship between the organization and the user. Typical values used might be 'Contractor', 'Employee', 'Intern', 'Temp', 'External', and 'Unknown', but any value may be used."),
        text("preferredLanguage", "Indicates the User's preferred written or spoken language. Generally used for selecting a localized user interface; e.g., 'en_US' specifies the language English and country US."),
        text("locale", "Used to indicate the User's default location for purposes of localizing items such as currency, date time format, or numerical representations."),
        text("timezone", "The User's time zone in the 'Olson' time zone database format, e.g., 'America/Los_Angeles'."),
        SCIMAttribute(name: "active", type: .boolean, description: "A Boolean value indicating the User's administrative status."),
        SCIMAttribute(name: "emails", type: .complex, multiValued: true, description: "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., 'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'.", subAttributes: [
            text("value", "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., 'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'."),
            text("display", "A human-readable name, primarily used for display purposes. READ-ONLY."),
            text("type", "A label indicating the attribute's function, e.g., 'work' or 'home'.", canonicalValues: ["work", "home", "other"]),
            primary("mailing address or primary email address"),
        ]),
        SCIMAttribute(name: "phoneNumbers", type: .complex, multiValued: true, description: "Phone numbers for the User. The value SHOULD be canonicalized by the service provider according to the format specified in RFC 3966, e.g., 'tel:+1-201-555-0123'. Canonical type values of 'work', 'home', 'mobile', 'fax', 'pager', and 'other'.", subAttributes: [
            text("value", "Phone number of the User."),
            text("display", "A human-readable name, primarily used for display purposes. READ-ONLY."),
            text("type", "A label indicating the attribute's function, e.g., 'work', 'home', 'mobile'.", canonicalValues: ["work", "home", "mobile", "fax", "pager", "other"]),
            primary("phone number"),
        ]),
        SCIMAttribute(name: "addresses", type: .complex, multiValued: true, description: "A physical mailing address for this User. Canonical type values of 'work', 'home', and 'other'. This attribute is a complex type with the following sub-attributes.", subAttributes: [
            text("formatted", "The full mailing address, formatted for display or use with a mailing label. This attribute MAY contain newlines."),
            text("streetAddress", "The full street address component, which may include house number, street name, P.O. box, and multi-line extended street address information. This attribute MAY contain newlines."),
            text("locality", "The city or locality component."),
            text("region", "The state or region component."),
            text("postalCode", "The zip code or postal code component."),
            text("country", "The country name component."),
            text("type", "A label indicating the attribute's function, e.g., 'work' or 'home'.", canonicalValues: ["work", "home", "other"]),
            primary("address"),
        ]),
        SCIMAttribute(name: "groups", type: .complex, multiValued: true, description: "A list of groups to which the user belongs, either through direct membership, through nested groups, or dynamically calculated.", mutability: .readOnly, subAttributes: [
            text("value", "The identifier of the User's group.", mutability: .readOnly),
            SCIMAttribute(name: "$ref", type: .reference, description: "The URI of the corresponding 'Group' resource to which the user belongs.", mutability: .readOnly, referenceTypes: ["User", "Group"]),
            text("display", "A human-readable name, primarily used for display purposes. READ-ONLY.", mutability: .readOnly),
            text("type", "A label indicating the attribute's function, e.g., 'direct' or 'indirect'.", mutability: .readOnly, canonicalValues: ["direct", "indirect"]),
        ]),
    ])

    /// RFC 7643 §4.3's Enterprise User extension.
    public static let enterpriseUser = SCIMSchema(id: SCIMSchemaURI.enterpriseUser, name: "EnterpriseUser", description: "Enterprise User", attributes: [
        text("employeeNumber", "Numeric or alphanumeric identifier assigned to a person, typically based on order of hire or association with an organization."),
        text("costCenter", "Identifies the name of a cost center."),
        text("organization", "Identifies the name of an organization."),
        text("division", "Identifies the name of a division."),
        text("department", "Identifies the name of a department."),
        SCIMAttribute(name: "manager", type: .complex, description: "The User's manager. A complex type that optionally allows service providers to represent organizational hierarchy by referencing the 'id' attribute of another User.", subAttributes: [
            text("value", "The id of the SCIM resource representing the User's manager. REQUIRED."),
            SCIMAttribute(name: "$ref", type: .reference, description: "The URI of the SCIM resource representing the User's manager. REQUIRED.", referenceTypes: ["User"]),
            text("displayName", "The displayName of the User's manager. OPTIONAL and READ-ONLY.", mutability: .readOnly),
        ]),
    ])

    /// RFC 7643 §4.2 / §8.7.1's Group schema; `displayName` is required (Handover names every
    /// group), `members.display` is readOnly (the server writes it from the member).
    public static let group = SCIMSchema(id: SCIMSchemaURI.group, name: "Group", description: "Group", attributes: [
        text("displayName", "A human-readable name for the Group. REQUIRED.", required: true),
        SCIMAttribute(name: "members", type: .complex, multiValued: true, description: "A list of members of the Group.", subAttributes: [
            text("value", "Identifier of the member of this Group.", mutability: .immutable),
            SCIMAttribute(name: "$ref", type: .reference, description: "The URI corresponding to a SCIM resource that is a member of this Group.", mutability: .immutable, referenceTypes: ["User", "Group"]),
            text("display", "A human-readable name, primarily used for display purposes. READ-ONLY.", mutability: .readOnly),
            text("type", "A label indicating the type of resource, e.g., 'User' or 'Group'.", mutability: .immutable, canonicalValues: ["User", "Group"]),
        ]),
    ])
}
