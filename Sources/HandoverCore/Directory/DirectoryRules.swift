import Foundation
import SCIM

/// What a change to a person provisioned from the directory means, decided from plain values:
/// the store loads the person before and after, these rules say what follows, and
/// ``DirectoryProvisioning`` applies it.
package enum DirectoryRules {
    /// A provisioned person as the rules see them.
    package struct State: Equatable, Sendable {
        package var active: Bool
        /// Their login: the email address their app sessions, custody and dashboard person carry.
        package var login: String?
        /// The values their groups give the role map: each group's `displayName` and `externalId`
        /// (Entra ID's object id).
        package var groupValues: [String]

        package init(active: Bool, login: String?, groupValues: [String]) {
            self.active = active
            self.login = login
            self.groupValues = groupValues
        }
    }

    /// What follows a change.
    package struct Effects: Equatable, Sendable {
        /// End everything the person holds (their `active` became false, or they were deleted while active).
        package var deprovision: Bool
        /// They were deprovisioned and are active again: they start fresh.
        package var reactivate: Bool
        /// The dashboard grants the directory gives them now (none while inactive).
        package var grants: Permissions
        /// Whether a grant was taken away: their open dashboard sessions end.
        package var grantsNarrowed: Bool
    }

    /// Decides what follows from `before` (nil: a new person) becoming `after` (nil: deleted).
    package static func decide(before: State?, after: State?, roleMap: RoleMap?) -> Effects {
        let old = before.map { grants(for: $0, roleMap: roleMap) } ?? Permissions([])
        let new = after.map { grants(for: $0, roleMap: roleMap) } ?? Permissions([])
        let wasActive = before?.active ?? false
        let isActive = after?.active ?? false
        return Effects(deprovision: wasActive && !isActive,
                       reactivate: before != nil && !wasActive && isActive,
                       grants: new, grantsNarrowed: !new.includes(old))
    }

    /// The grants the role map gives a person's groups; none while they are inactive.
    package static func grants(for state: State, roleMap: RoleMap?) -> Permissions {
        guard state.active, let roleMap else { return Permissions([]) }
        return roleMap.permissions(for: state.groupValues)
    }

    /// A person's login, from their SCIM resource: the primary email, else the work one, else the
    /// first, else `userName` when it is an email address (Entra ID sends the UPN). Lowercased.
    package static func login(of user: SCIMValue) -> String? {
        let emails = (user.member("emails")?.arrayValue ?? []).compactMap { email -> (value: String, primary: Bool, type: String?)? in
            guard let value = email.member("value")?.stringValue else { return nil }
            return (value, email.member("primary")?.boolValue ?? false, email.member("type")?.stringValue?.lowercased())
        }
        let chosen = emails.first(where: \.primary) ?? emails.first(where: { $0.type == "work" }) ?? emails.first
        for candidate in [chosen?.value, user.member("userName")?.stringValue].compactMap({ $0 }) {
            if let address = EmailAddress(candidate) { return address.normalized }
        }
        return nil
    }

    /// Who a badge tap names, from the provisioned people whose badge it is.
    package enum BadgeHolder: Equatable, Sendable {
        /// One active person, by their login.
        case person(login: String)
        /// The badge's person was deprovisioned: refused from then on.
        case deprovisioned
        /// Two active people share the badge: refused, since nobody can say whose tap it was.
        case ambiguous
        /// The directory knows no such badge.
        case unknown
        /// The badge's person has no email address to be known by on a device.
        case noLogin
    }

    /// Decides whose a badge is, from every provisioned person carrying it.
    package static func holder(of badge: [(active: Bool, login: String?)]) -> BadgeHolder {
        let active = badge.filter(\.active)
        if active.count > 1 { return .ambiguous }
        if let only = active.first { return only.login.map { .person(login: $0) } ?? .noLogin }
        return badge.isEmpty ? .unknown : .deprovisioned
    }
}
