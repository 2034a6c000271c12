import Foundation
import HandoverSchema
import SCIM
import SessionTokens

/// `/scim/v2/Users`: create, read, list, replace, patch and delete a person (RFC 7644 §3.3–§3.6).
extension DirectoryProvisioning {
    /// What a change did beyond the resource: for the audit log and the SCIM client's answer.
    package struct Outcome: Sendable {
        package var resource: SCIMValue
        package var version: Int
        package var handedOver: PersonHandOver.Done?
    }

    package func createUser(_ body: SCIMValue, client: String, base: String) async throws -> Outcome {
        let document = Self.withoutServerAttributes(try SCIMResourceSchema.user.normalized(body))
        let (stored, badge) = takeBadge(from: document)
        let userName = try Self.userName(of: stored)
        let now = now()
        let state = DirectoryRules.State(active: Self.active(stored), login: DirectoryRules.login(of: stored), groupValues: [])
        let record = DirectoryUserRecord(id: UUID(), userName: userName, externalID: stored.member("externalId")?.stringValue,
                                         displayName: Self.displayName(of: stored), login: state.login, active: state.active,
                                         badgeDigest: badge.map(badgeDigest), badgeSealed: try badge.map { try sealer.seal($0) }, document: stored,
                                         grants: "", version: 1, createdAt: now, updatedAt: now, deprovisionedAt: state.active ? nil : now)
        try await database.inTransaction { db in
            if try await DirectoryStore.userNameTaken(userName, except: nil, on: db) {
                throw SCIMError(status: 409, scimType: .uniqueness, detail: "userName: '\(userName.prefix(100))' is already provisioned; userName is unique, compared ignoring case.")
            }
            try await DirectoryStore.insert(record, on: db)
            try await AdminEvent(at: now, kind: .provisioned, who: client, detail: "provisioned \(Self.describe(record))").record(on: db)
        }
        return Outcome(resource: try resource(record, groups: [], base: base), version: record.version)
    }

    package func user(_ id: String, base: String) async throws -> SCIMValue {
        let record = try await existingUser(id)
        let groups = try await DirectoryStore.groups(of: [record.id], on: database)[record.id] ?? []
        return try resource(record, groups: groups, base: base)
    }

    /// A page of the people `filter` matches (RFC 7644 §3.4.2): their total, and from the
    /// 1-based `startIndex` at most `count`.
    package func users(filter: SCIMFilter?, startIndex: Int, count: Int, base: String) async throws -> (total: Int, page: [SCIMValue]) {
        let (userName, externalID) = Self.narrowing(filter, first: "userName", second: "externalId")
        let candidates = try await DirectoryStore.users(userName: userName, externalID: externalID, on: database)
        var matched: [DirectoryUserRecord] = []
        var groups: [UUID: [DirectoryGroupRecord]] = [:]
        if let filter {
            // Filters may name `groups`, so memberships are loaded before matching when they do.
            if Self.names(filter, "groups") { groups = try await DirectoryStore.groups(of: candidates.map(\.id), on: database) }
            for record in candidates where filter.matches(try resource(record, groups: groups[record.id] ?? [], base: base), schema: .user) {
                matched.append(record)
            }
        } else {
            matched = candidates
        }
        let page = Array(matched.dropFirst(max(0, startIndex - 1)).prefix(max(0, count)))
        if !Self.names(filter, "groups") { groups = try await DirectoryStore.groups(of: page.map(\.id), on: database) }
        return (matched.count, try page.map { try resource($0, groups: groups[$0.id] ?? [], base: base) })
    }

    package func replaceUser(_ id: String, _ body: SCIMValue, ifMatch: String?, client: String, base: String) async throws -> Outcome {
        let document = try SCIMResourceSchema.user.normalized(body)
        return try await changeUser(id, ifMatch: ifMatch, client: client, base: base, verb: "replaced") { _ in document }
    }

    package func patchUser(_ id: String, _ patch: SCIMPatchRequest, ifMatch: String?, client: String, base: String) async throws -> Outcome {
        try await changeUser(id, ifMatch: ifMatch, client: client, base: base, verb: "changed") { current in
            try patch.apply(to: current, schema: .user)
        }
    }

    package func deleteUser(_ id: String, ifMatch: String?, client: String) async throws {
        let record = try await existingUser(id)
        try Self.check(ifMatch: ifMatch, version: record.version)
        let groups = try await DirectoryStore.groups(of: [record.id], on: database)[record.id] ?? []
        let before = DirectoryRules.State(active: record.active, login: record.login, groupValues: Self.values(of: groups))
        let effects = DirectoryRules.decide(before: before, after: nil, roleMap: roleMap)
        let now = now()
        try await DirectoryStore.deleteUser(record.id, at: now, on: database)
        let done = try await follow(effects, login: record.login, purged: true, client: client)
        try await AdminEvent(at: now, kind: .deprovisioned, who: client,
                             detail: "deleted \(Self.describe(record))" + Self.summary(done)).record(on: database)
    }

    /// Reads the person, gives their resource to `change`, and stores what it returns, with what
    /// the change means applied.
    private func changeUser(_ id: String, ifMatch: String?, client: String, base: String, verb: String,
                            _ change: (SCIMValue) throws -> SCIMValue) async throws -> Outcome {
        for _ in 0..<3 {
            let record = try await existingUser(id)
            try Self.check(ifMatch: ifMatch, version: record.version)
            let groups = try await DirectoryStore.groups(of: [record.id], on: database)[record.id] ?? []
            let current = try resource(record, groups: groups, base: base)
            var changed = try change(current)
            changed = Self.withoutServerAttributes(changed)
            let (stored, badge) = takeBadge(from: changed)
            let userName = try Self.userName(of: stored)
            let values = Self.values(of: groups)
            let before = DirectoryRules.State(active: record.active, login: record.login, groupValues: values)
            let after = DirectoryRules.State(active: Self.active(stored), login: DirectoryRules.login(of: stored), groupValues: values)
            let effects = DirectoryRules.decide(before: before, after: after, roleMap: roleMap)
            let now = now()
            var updated = record
            updated.userName = userName
            updated.externalID = stored.member("externalId")?.stringValue
            updated.displayName = Self.displayName(of: stored)
            updated.login = after.login
            updated.active = after.active
            updated.document = stored
            updated.badgeDigest = badge.map(badgeDigest)
            updated.badgeSealed = try badge.map { try sealer.seal($0) }
            updated.grants = effects.grants.text
            updated.version = record.version + 1
            updated.updatedAt = now
            if effects.deprovision { updated.deprovisionedAt = now }
            if effects.reactivate { updated.deprovisionedAt = nil }
            let write = updated
            let taken = SCIMError(status: 409, scimType: .uniqueness, detail: "userName: '\(userName.prefix(100))' is already provisioned; userName is unique, compared ignoring case.")
            let stale = try await !DirectoryStore.update(write, from: record.version, refusingTakenName: taken, on: database)
            if stale { continue }  // changed meanwhile by another request: read it again
            var done: PersonHandOver.Done?
            if effects.deprovision {
                done = try await follow(effects, login: effects.deprovision ? record.login : nil, purged: false, client: client)
            }
            try await applyGrants(effects, login: after.login ?? record.login)
            let kind: AdminEvent.Kind = effects.deprovision ? .deprovisioned : .provisioned
            let what = effects.deprovision ? "deactivated" : effects.reactivate ? "reactivated (starts fresh)" : verb
            try await AdminEvent(at: now, kind: kind, who: client, detail: "\(what) \(Self.describe(updated))" + Self.summary(done)).record(on: database)
            return Outcome(resource: try resource(updated, groups: groups, base: base), version: updated.version, handedOver: done)
        }
        throw SCIMError(status: 409, detail: "The resource kept changing while this request was applied; send it again.")
    }

    func existingUser(_ id: String) async throws -> DirectoryUserRecord {
        guard let record = try await DirectoryStore.user(try Self.uuid(id, "user"), on: database) else {
            throw SCIMError(status: 404, detail: "No user has the id '\(id.prefix(64))'.")
        }
        return record
    }

    /// Ends everything a deprovisioned person holds, and tells the Shared Signals receivers.
    func follow(_ effects: DirectoryRules.Effects, login: String?, purged: Bool, client: String) async throws -> PersonHandOver.Done? {
        guard effects.deprovision, let login else { return nil }
        let done = try await handOver.handOver(.email(login), trustedIssuers: [], reason: "deprovisioned by the directory (\(client))")
        let now = now()
        try await DirectoryStore.enqueueSignals(on: database, now: now) {
            [SecurityEvent(type: purged ? SecurityEventType.accountPurged : SecurityEventType.accountDisabled, subject: .email(login),
                           claims: SecurityEventClaims(initiating_entity: "admin", reason_admin: ["en": "deprovisioned by the directory (\(client))"]), at: now)]
        }
        return done
    }

    static func summary(_ done: PersonHandOver.Done?) -> String {
        guard let done else { return "" }
        return "; \(done.runs.count) hand-over(s) started, \(done.sessions) session(s) and \(done.dashboardSessions) dashboard session(s) ended"
    }

    static func describe(_ record: DirectoryUserRecord) -> String {
        let name = record.displayName.map { "\($0) " } ?? ""
        return "\(name)<\(record.login ?? record.userName)> (SCIM id \(record.id.uuidString.lowercased()))"
    }

    static func userName(of document: SCIMValue) throws(SCIMError) -> String {
        guard let userName = document.member("userName")?.stringValue?.trimmingCharacters(in: .whitespaces), !userName.isEmpty,
              userName.utf8.count <= 256 else {
            throw SCIMError.bad(.invalidValue, "userName: required, a string of 1 to 256 bytes (RFC 7643 §4.1.1).")
        }
        return userName
    }

    static func active(_ document: SCIMValue) -> Bool { document.member("active")?.boolValue ?? true }

    static func displayName(of document: SCIMValue) -> String? {
        if let name = document.member("displayName")?.stringValue { return name }
        let name = document.member("name")
        if let formatted = name?.member("formatted")?.stringValue { return formatted }
        let parts = [name?.member("givenName")?.stringValue, name?.member("familyName")?.stringValue].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// A resource less what only the server sets (`id`, `meta`, a person's `groups`) and what it
    /// never keeps (a `password`, which Okta sends: Handover authenticates nobody by one).
    static func withoutServerAttributes(_ document: SCIMValue) -> SCIMValue {
        guard case .object(var members) = document else { return document }
        for name in ["id", "meta", "groups", "password"] { if let key = document.key(of: name) { members[key] = nil } }
        return .object(members)
    }

    /// The role map's values of a person's groups: each group's name and external id.
    static func values(of groups: [DirectoryGroupRecord]) -> [String] {
        groups.flatMap { [$0.displayName] + ($0.externalID.map { [$0] } ?? []) }
    }

    /// An `eq` on one of two indexed attributes, anded with the rest, narrows the rows read.
    static func narrowing(_ filter: SCIMFilter?, first: String, second: String) -> (String?, String?) {
        guard let filter else { return (nil, nil) }
        switch filter {
        case .compare(let path, .eq, .string(let value)) where path.subAttribute == nil:
            if path.attribute.lowercased() == first.lowercased() { return (value, nil) }
            if path.attribute.lowercased() == second.lowercased() { return (nil, value) }
            return (nil, nil)
        case .and(let left, let right):
            let (a, b) = narrowing(left, first: first, second: second)
            if a != nil || b != nil { return (a, b) }
            return narrowing(right, first: first, second: second)
        default: return (nil, nil)
        }
    }

    /// Whether a filter names `attribute` anywhere.
    static func names(_ filter: SCIMFilter?, _ attribute: String) -> Bool {
        guard let filter else { return false }
        switch filter {
        case .compare(let path, _, _), .present(let path): return path.attribute.lowercased() == attribute.lowercased()
        case .valuePath(let path, let inner): return path.attribute.lowercased() == attribute.lowercased() || names(inner, attribute)
        case .and(let a, let b), .or(let a, let b): return names(a, attribute) || names(b, attribute)
        case .not(let inner): return names(inner, attribute)
        }
    }
}
