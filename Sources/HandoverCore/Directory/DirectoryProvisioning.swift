import Foundation
import SCIM
import SessionTokens

/// People and groups provisioned from the organisation's directory by SCIM 2.0 (RFC 7644): what
/// `/scim/v2/Users` and `/scim/v2/Groups` do, over the store, with what a change means
/// (``DirectoryRules``) applied: a person deactivated or deleted has everything they hold ended
/// (``PersonHandOver``); group membership feeds the dashboard's role map.
///
/// Every method throws ``SCIMError`` for what the client sent (the routes answer it as RFC 7644
/// §3.12 says), other errors for the server's own failures.
package struct DirectoryProvisioning: Sendable {
    package let database: DatabaseHandle
    package let handOver: PersonHandOver
    /// `HANDOVER_ADMIN_ROLE_MAP`: what groups grant on the dashboard; nil without a provider.
    package let roleMap: RoleMap?
    /// Where a person's badge is in their resource (`employeeNumber` of the enterprise extension
    /// by default).
    package let badgeAttribute: SCIMAttributePath
    package let now: @Sendable () -> Date

    package init(database: DatabaseHandle, handOver: PersonHandOver, roleMap: RoleMap?, badgeAttribute: SCIMAttributePath = Self.employeeNumber,
                 now: @escaping @Sendable () -> Date) {
        self.database = database
        self.handOver = handOver
        self.roleMap = roleMap
        self.badgeAttribute = badgeAttribute
        self.now = now
    }

    /// `employeeNumber` of the enterprise extension (RFC 7643 §4.3): a badge's usual home.
    package static let employeeNumber = SCIMAttributePath(schema: SCIMSchemaURI.enterpriseUser, attribute: "employeeNumber")

    var sealer: SecretSealer { handOver.sessions.sealer }

    /// The keyed digest of a badge: the one custody keeps and badge taps are looked up by.
    package func badgeDigest(_ badge: String) -> String { sealer.keyedDigest(badge, purpose: "handover badge") }

    // MARK: the badge inside a resource

    /// Takes the badge out of `document` (it is stored sealed, and as its digest, apart).
    func takeBadge(from document: SCIMValue) -> (document: SCIMValue, badge: String?) {
        guard case .object(var members) = document else { return (document, nil) }
        if let schema = badgeAttribute.schema {
            guard let key = document.key(of: schema), case .object(var inner)? = members[key],
                  let attribute = SCIMValue.object(inner).key(of: badgeAttribute.attribute) else { return (document, nil) }
            let badge = inner.removeValue(forKey: attribute)?.stringValue
            members[key] = inner.isEmpty ? nil : .object(inner)
            return (.object(members), badge.flatMap { $0.isEmpty ? nil : $0 })
        }
        guard let attribute = document.key(of: badgeAttribute.attribute) else { return (document, nil) }
        let badge = members.removeValue(forKey: attribute)?.stringValue
        return (.object(members), badge.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Puts the badge back into a stored document, to answer with it.
    func putBadge(_ badge: String?, into document: SCIMValue) -> SCIMValue {
        guard let badge, case .object(var members) = document else { return document }
        if let schema = badgeAttribute.schema {
            let key = document.key(of: schema) ?? schema
            var inner = members[key]?.objectValue ?? [:]
            inner[badgeAttribute.attribute] = .string(badge)
            members[key] = .object(inner)
            if case .array(var schemas)? = members["schemas"], !schemas.contains(.string(schema)) {
                schemas.append(.string(schema))
                members["schemas"] = .array(schemas)
            }
        } else {
            members[badgeAttribute.attribute] = .string(badge)
        }
        return .object(members)
    }

    // MARK: rendering

    /// A person as SCIM answers them: the stored document with its badge, `id`, `groups` and `meta`.
    package func resource(_ record: DirectoryUserRecord, groups: [DirectoryGroupRecord], base: String) throws -> SCIMValue {
        let badge = try record.badgeSealed.map { try sealer.openString($0) }
        guard case .object(var members) = putBadge(badge, into: record.document) else { return record.document }
        members["id"] = .string(record.id.uuidString.lowercased())
        if !groups.isEmpty {
            members["groups"] = .array(groups.map { group in
                .object(["value": .string(group.id.uuidString.lowercased()), "$ref": .string("\(base)/Groups/\(group.id.uuidString.lowercased())"),
                         "display": .string(group.displayName), "type": .string("direct")])
            })
        }
        members["meta"] = Self.meta("User", id: record.id, version: record.version, created: record.createdAt, updated: record.updatedAt, base: base)
        return .object(members)
    }

    /// A group as SCIM answers it: its document with `id`, `members` and `meta`.
    package func resource(_ record: DirectoryGroupRecord, members list: [DirectoryMember], base: String) -> SCIMValue {
        guard case .object(var members) = record.document else { return record.document }
        members["id"] = .string(record.id.uuidString.lowercased())
        if !list.isEmpty {
            members["members"] = .array(list.map { member in
                let path = member.kind == .user ? "Users" : "Groups"
                return .object(["value": .string(member.id.uuidString.lowercased()), "$ref": .string("\(base)/\(path)/\(member.id.uuidString.lowercased())"),
                                "type": .string(member.kind.rawValue)])
            })
        }
        members["meta"] = Self.meta("Group", id: record.id, version: record.version, created: record.createdAt, updated: record.updatedAt, base: base)
        return .object(members)
    }

    /// The weak entity tag of a resource's version, as `meta.version` and the `ETag` header carry it
    /// (RFC 7644 §3.14).
    package static func etag(_ version: Int) -> String { "W/\"\(version)\"" }

    static func meta(_ type: String, id: UUID, version: Int, created: Date, updated: Date, base: String) -> SCIMValue {
        let path = type == "User" ? "Users" : "Groups"
        return .object(["resourceType": .string(type), "created": .string(Self.timestamp(created)), "lastModified": .string(Self.timestamp(updated)),
                        "location": .string("\(base)/\(path)/\(id.uuidString.lowercased())"), "version": .string(etag(version))])
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Refuses a change whose `If-Match` names another version (RFC 7644 §3.14: 412).
    static func check(ifMatch: String?, version: Int) throws(SCIMError) {
        guard let ifMatch, ifMatch != "*" else { return }
        let tags = ifMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let current = etag(version)
        guard tags.contains(where: { $0 == current || $0 == "\"\(version)\"" }) else {
            throw SCIMError(status: 412, detail: "If-Match: the resource is at version \(current), not \(ifMatch); read it again and retry.")
        }
    }

    static func uuid(_ text: String, _ what: String) throws(SCIMError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw SCIMError(status: 404, detail: "No \(what) has the id '\(text.prefix(64))'.") }
        return id
    }
}
