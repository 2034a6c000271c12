import Foundation
import HandoverSchema

/// A person's roles from two places: the provider's role map (`HANDOVER_ADMIN_ROLE_MAP`, read at
/// each sign-in) and the roles an admin grants them on the People page (stored on the person).
/// A person signs in with both together (``effective(provider:local:)``).
///
/// Changing the local roles is decided, then applied (``plan(_:for:)``, ``apply(_:to:sessions:on:)``):
/// roles added take effect at the person's next sign-in (open sessions keep the grants they
/// were opened with); when the change takes a role away (the new grants do not include the old,
/// ``Permissions/includes(_:)``, the rule a sign-in applies when the provider takes one away),
/// every open dashboard session of the person ends at once, on every instance.
package enum PersonRoles {
    /// The grants a person signs in with.
    package static func effective(provider: Permissions, local: Permissions) -> Permissions {
        Permissions(provider.grants.union(local.grants))
    }

    /// A decided change of a person's local roles.
    package struct Change: Sendable, Equatable {
        package var localBefore: Permissions
        package var localAfter: Permissions
        package var before: Permissions
        package var after: Permissions
        /// Whether a role is taken away: the person's open sessions end.
        package var endsSessions: Bool { !after.includes(before) }
    }

    /// Reads `text` (`role` or `role@SITE+SITE`, comma-separated; empty for none) and decides the
    /// change for `person`. Throws ``DomainError`` naming `roles` (422) for text that is not that.
    package static func plan(_ text: String, for person: Person) throws -> Change {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let local: Permissions
        do {
            local = try Permissions(text: trimmed)
        } catch let error as RoleMapError {
            throw DomainError.invalid("roles", "entry \(error.entry) ('\(error.text.dropFirst(2).prefix(80))') \(error.problem); "
                                      + "write role or role@SITE+SITE, comma-separated, where role is viewer, operator or admin "
                                      + "(for example operator@ICU+Ward 7), or nothing for no local role")
        }
        let provider = (try? Permissions(text: person.providerGrants ?? person.grants)) ?? Permissions([])
        let localBefore = (try? Permissions(text: person.localGrants ?? "")) ?? Permissions([])
        let before = (try? Permissions(text: person.grants)) ?? Permissions([])
        return Change(localBefore: localBefore, localAfter: local, before: before, after: effective(provider: provider, local: local))
    }

    /// Saves the change and, when it takes a role away, ends the person's sessions; returns how
    /// many ended.
    @discardableResult
    package static func apply(_ change: Change, to person: Person, sessions: DashboardSessions, on database: DatabaseHandle) async throws -> Int {
        person.localGrants = change.localAfter.isEmpty ? nil : change.localAfter.text
        if person.providerGrants == nil { person.providerGrants = change.before.text }
        person.grants = change.after.text
        try await PeopleStore(database).save(person)
        guard change.endsSessions, let id = person.id else { return 0 }
        return try await sessions.endAll(of: id, on: database)
    }

    /// What the admin history says of a change.
    package static func describe(_ change: Change, of person: Person, endedSessions: Int) -> String {
        "set \(AdminSignIn.describe(person))'s local roles to \(change.localAfter.summary) (was \(change.localBefore.summary)); "
            + "signs in with \(change.after.summary)" + (change.endsSessions ? "; a role was taken away: \(endedSessions) session(s) ended" : "")
    }
}
