import Foundation
import HandoverSchema
import SCIM

/// `/scim/v2/Groups`: create, read, list, replace, patch and delete a group, whose members'
/// dashboard roles follow it (RFC 7644 §3.3–§3.6).
extension DirectoryProvisioning {
    package func createGroup(_ body: SCIMValue, client: String, base: String) async throws -> Outcome {
        let document = try SCIMResourceSchema.group.normalized(body)
        let (stored, members) = try await takeMembers(from: document)
        let now = now()
        let record = DirectoryGroupRecord(id: UUID(), displayName: try Self.groupName(of: stored), externalID: stored.member("externalId")?.stringValue,
                                          document: stored, version: 1, createdAt: now, updatedAt: now)
        let joined = try await DirectoryStore.insert(record, members: members, on: database)
        try await regrant(joined)
        try await AdminEvent(at: now, kind: .provisioned, who: client,
                             detail: "provisioned group \(record.displayName) with \(members.count) member(s)").record(on: database)
        return Outcome(resource: resource(record, members: try await DirectoryStore.members(of: record.id, on: database), base: base), version: 1)
    }

    package func group(_ id: String, base: String) async throws -> SCIMValue {
        let record = try await existingGroup(id)
        return resource(record, members: try await DirectoryStore.members(of: record.id, on: database), base: base)
    }

    package func groups(filter: SCIMFilter?, startIndex: Int, count: Int, base: String, withMembers: Bool) async throws -> (total: Int, page: [SCIMValue]) {
        let (displayName, externalID) = Self.narrowing(filter, first: "displayName", second: "externalId")
        let candidates = try await DirectoryStore.groups(displayName: displayName, externalID: externalID, on: database)
        let needsMembers = withMembers || Self.names(filter, "members")
        var matched: [(DirectoryGroupRecord, [DirectoryMember])] = []
        for record in candidates {
            let members = needsMembers ? try await DirectoryStore.members(of: record.id, on: database) : []
            if let filter, !filter.matches(resource(record, members: members, base: base), schema: .group) { continue }
            matched.append((record, members))
        }
        let page = matched.dropFirst(max(0, startIndex - 1)).prefix(max(0, count))
        return (matched.count, page.map { resource($0.0, members: withMembers ? $0.1 : [], base: base) })
    }

    package func replaceGroup(_ id: String, _ body: SCIMValue, ifMatch: String?, client: String, base: String) async throws -> Outcome {
        let document = try SCIMResourceSchema.group.normalized(body)
        return try await changeGroup(id, ifMatch: ifMatch, client: client, base: base) { _ in document }
    }

    package func patchGroup(_ id: String, _ patch: SCIMPatchRequest, ifMatch: String?, client: String, base: String) async throws -> Outcome {
        try await changeGroup(id, ifMatch: ifMatch, client: client, base: base) { current in try patch.apply(to: current, schema: .group) }
    }

    package func deleteGroup(_ id: String, ifMatch: String?, client: String) async throws {
        let record = try await existingGroup(id)
        try Self.check(ifMatch: ifMatch, version: record.version)
        let members = try await DirectoryStore.members(of: record.id, on: database)
        try await DirectoryStore.deleteGroup(record.id, on: database)
        try await regrant(Set(members.filter { $0.kind == .user }.map(\.id)))
        try await AdminEvent(at: now(), kind: .provisioned, who: client,
                             detail: "deleted group \(record.displayName) (\(members.count) member(s))").record(on: database)
    }

    private func changeGroup(_ id: String, ifMatch: String?, client: String, base: String,
                             _ change: (SCIMValue) throws -> SCIMValue) async throws -> Outcome {
        for _ in 0..<3 {
            let record = try await existingGroup(id)
            try Self.check(ifMatch: ifMatch, version: record.version)
            let current = resource(record, members: try await DirectoryStore.members(of: record.id, on: database), base: base)
            let changed = Self.withoutServerAttributes(try change(current))
            let (stored, members) = try await takeMembers(from: changed)
            var updated = record
            updated.displayName = try Self.groupName(of: stored)
            updated.externalID = stored.member("externalId")?.stringValue
            updated.document = stored
            updated.version = record.version + 1
            updated.updatedAt = now()
            let write = updated
            let outcome = try await DirectoryStore.update(write, from: record.version, members: members, on: database)
            guard let changedPeople = outcome else { continue }
            // A renamed group changes what its members' names map to.
            let everyone = record.displayName != updated.displayName || record.externalID != updated.externalID
                ? changedPeople.union(members.filter { $0.kind == .user }.map(\.id)) : changedPeople
            try await regrant(everyone)
            if !changedPeople.isEmpty || record.displayName != updated.displayName {
                try await AdminEvent(at: updated.updatedAt, kind: .provisioned, who: client,
                                     detail: "changed group \(updated.displayName): \(changedPeople.count) member(s) joined or left").record(on: database)
            }
            return Outcome(resource: resource(updated, members: try await DirectoryStore.members(of: record.id, on: database), base: base),
                           version: updated.version)
        }
        throw SCIMError(status: 409, detail: "The group kept changing while this request was applied; send it again.")
    }

    func existingGroup(_ id: String) async throws -> DirectoryGroupRecord {
        guard let record = try await DirectoryStore.group(try Self.uuid(id, "group"), on: database) else {
            throw SCIMError(status: 404, detail: "No group has the id '\(id.prefix(64))'.")
        }
        return record
    }

    static func groupName(of document: SCIMValue) throws(SCIMError) -> String {
        guard let name = document.member("displayName")?.stringValue?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.utf8.count <= 256 else {
            throw SCIMError.bad(.invalidValue, "displayName: required, a string of 1 to 256 bytes (RFC 7643 §4.2).")
        }
        return name
    }

    /// Takes `members` out of a group's document, each checked to be a provisioned person or group.
    func takeMembers(from document: SCIMValue) async throws -> (SCIMValue, Set<DirectoryMember>) {
        guard case .object(var object) = document, let key = document.key(of: "members") else { return (document, []) }
        let given = object.removeValue(forKey: key)?.arrayValue ?? []
        var ids: [UUID] = []
        for member in given {
            guard let text = member.member("value")?.stringValue, let id = UUID(uuidString: text) else {
                throw SCIMError.bad(.invalidValue, "members: each member's value is the id of a provisioned user or group, such as 2819c223-7f76-453a-919d-413861904646.")
            }
            ids.append(id)
        }
        let kinds = try await DirectoryStore.kinds(of: ids, on: database)
        var members: Set<DirectoryMember> = []
        for id in ids {
            guard let kind = kinds[id] else {
                throw SCIMError.bad(.invalidValue, "members: no provisioned user or group has the id \(id.uuidString.lowercased()).")
            }
            members.insert(DirectoryMember(id: id, kind: kind))
        }
        return (.object(object), members)
    }

    /// Works out again the dashboard grants of `people`, whose groups changed.
    func regrant(_ people: Set<UUID>) async throws {
        guard !people.isEmpty else { return }
        let groups = try await DirectoryStore.groups(of: Array(people), on: database)
        for id in people {
            guard var record = try await DirectoryStore.user(id, on: database) else { continue }
            let state = DirectoryRules.State(active: record.active, login: record.login, groupValues: Self.values(of: groups[id] ?? []))
            let old = (try? Permissions(text: record.grants)) ?? Permissions([])
            let new = DirectoryRules.grants(for: state, roleMap: roleMap)
            guard new != old else { continue }
            record.grants = new.text
            _ = try await DirectoryStore.update(record, from: record.version, on: database)
            try await applyGrants(DirectoryRules.Effects(deprovision: false, reactivate: false, grants: new, grantsNarrowed: !new.includes(old)),
                                  login: record.login)
        }
    }

    /// Gives the dashboard's person with `login` their grants with the directory's new ones;
    /// when a grant was taken away, their open dashboard sessions end (``PersonRoles``' rule).
    func applyGrants(_ effects: DirectoryRules.Effects, login: String?) async throws {
        guard let login else { return }
        let signals = SharedSignalsStore(database)
        guard signals.speaksSQL else { return }
        for id in try await signals.dashboardPeople(named: .email(login), trustedIssuers: []) {
            guard let person = try await Person.stored(id, on: database) else { continue }
            let provider = (try? Permissions(text: person.providerGrants ?? person.grants)) ?? Permissions([])
            let local = (try? Permissions(text: person.localGrants ?? "")) ?? Permissions([])
            let before = (try? Permissions(text: person.grants)) ?? Permissions([])
            let after = PersonRoles.effective(provider: Permissions(provider.grants.union(effects.grants.grants)), local: local)
            guard after != before else { continue }
            if person.providerGrants == nil { person.providerGrants = provider.text }
            person.grants = after.text
            try await PeopleStore(database).save(person)
            guard !after.includes(before), let id = person.id else { continue }
            let ended = try await handOver.dashboard.endAll(of: id, on: database)
            try await AdminEvent(at: now(), kind: .rolesChanged, personID: id, who: AdminSignIn.describe(person),
                                 detail: "the directory's groups now give \(after.summary) (was \(before.summary)); \(ended) session(s) ended").record(on: database)
        }
    }
}
