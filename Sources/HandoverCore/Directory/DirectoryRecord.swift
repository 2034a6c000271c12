import Foundation
import SCIM

/// A person provisioned from the directory, as stored: their SCIM resource without its `id`,
/// `meta` and badge, and the columns the server looks them up by.
package struct DirectoryUserRecord: Sendable, Equatable {
    package var id: UUID
    package var userName: String
    package var externalID: String?
    package var displayName: String?
    /// ``DirectoryRules/login(of:)``.
    package var login: String?
    package var active: Bool
    /// The keyed digest a badge tap is looked up by (the one custody keeps).
    package var badgeDigest: String?
    /// The badge, sealed with the server's at-rest key, to answer a SCIM `GET` with it.
    package var badgeSealed: String?
    package var document: SCIMValue
    /// The dashboard grants the directory's groups give the person (``DirectoryRules/grants(for:roleMap:)``).
    package var grants: String
    package var version: Int
    package var createdAt: Date
    package var updatedAt: Date
    package var deprovisionedAt: Date?
}

/// A group provisioned from the directory: its resource without `id`, `meta` and `members`
/// (kept in `directory_members`).
package struct DirectoryGroupRecord: Sendable, Equatable {
    package var id: UUID
    package var displayName: String
    package var externalID: String?
    package var document: SCIMValue
    package var version: Int
    package var createdAt: Date
    package var updatedAt: Date
}

/// A group's member: a person or a group.
package struct DirectoryMember: Sendable, Hashable {
    package enum Kind: String, Sendable { case user = "User", group = "Group" }
    package var id: UUID
    package var kind: Kind
}
