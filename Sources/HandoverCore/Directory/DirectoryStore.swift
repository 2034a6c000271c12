import FluentKit
import Foundation
import SCIM
import SQLKit

/// The directory's SQL: people, groups and memberships provisioned by SCIM, the People page's
/// listing of them, and the Shared Signals a deprovisioning queues.
package enum DirectoryStore {
    static func sql(_ db: any Database) throws -> any SQLDatabase {
        return try ServerDatabases.sql(db, code: "no_sql")
    }

    static func encode(_ document: SCIMValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> SCIMValue {
        try JSONDecoder().decode(SCIMValue.self, from: Data(text.utf8))
    }

    // MARK: people

    static let userColumns = """
        id, user_name, external_id, display_name, login, active, badge_digest, badge_sealed, document, grants, version, \
        created_at, updated_at, deprovisioned_at
        """

    static func user(from row: any SQLRow) throws -> DirectoryUserRecord {
        DirectoryUserRecord(id: try row.decode(column: "id", as: UUID.self), userName: try row.decode(column: "user_name", as: String.self),
                            externalID: try row.decode(column: "external_id", as: String?.self),
                            displayName: try row.decode(column: "display_name", as: String?.self),
                            login: try row.decode(column: "login", as: String?.self), active: try row.decode(column: "active", as: Bool.self),
                            badgeDigest: try row.decode(column: "badge_digest", as: String?.self),
                            badgeSealed: try row.decode(column: "badge_sealed", as: String?.self),
                            document: try decode(try row.decode(column: "document", as: String.self)),
                            grants: try row.decode(column: "grants", as: String.self), version: try row.decode(column: "version", as: Int.self),
                            createdAt: try row.decode(column: "created_at", as: Date.self), updatedAt: try row.decode(column: "updated_at", as: Date.self),
                            deprovisionedAt: try row.decode(column: "deprovisioned_at", as: Date?.self))
    }

    package static func user(_ id: UUID, on db: any Database) async throws -> DirectoryUserRecord? {
        try await sql(db).raw("SELECT \(unsafeRaw: userColumns) FROM directory_users WHERE id = \(bind: id) AND deleted_at IS NULL").first().map(user(from:))
    }

    /// The people a list narrows to: by `userName` (ignoring case), `externalId` or login when the
    /// filter names one exactly; every person otherwise. In creation order.
    package static func users(userName: String? = nil, externalID: String? = nil, login: String? = nil,
                              on db: any Database) async throws -> [DirectoryUserRecord] {
        var conditions: [SQLQueryString] = ["deleted_at IS NULL"]
        if let userName { conditions.append("user_name_key = \(bind: userName.lowercased())") }
        if let externalID { conditions.append("external_id = \(bind: externalID)") }
        if let login { conditions.append("login = \(bind: login.lowercased())") }
        let clause: SQLQueryString = "WHERE \(SQLList(conditions, separator: SQLRaw(" AND ")))"
        return try await sql(db).raw("SELECT \(unsafeRaw: userColumns) FROM directory_users \(clause) ORDER BY created_at, id").all().map(user(from:))
    }

    /// Whether another person has `userName` (compared ignoring case: RFC 7643 §4.1.1 says it is
    /// not case-exact).
    package static func userNameTaken(_ userName: String, except id: UUID?, on db: any Database) async throws -> Bool {
        let rows = try await sql(db).raw("SELECT id FROM directory_users WHERE user_name_key = \(bind: userName.lowercased())").all()
        return try rows.contains { try $0.decode(column: "id", as: UUID.self) != id }
    }

    package static func insert(_ record: DirectoryUserRecord, on db: any Database) async throws {
        try await sql(db).raw("""
            INSERT INTO directory_users (\(unsafeRaw: userColumns), user_name_key) VALUES (\(bind: record.id), \(bind: record.userName), \
            \(bind: record.externalID), \(bind: record.displayName), \(bind: record.login), \(bind: record.active), \(bind: record.badgeDigest), \
            \(bind: record.badgeSealed), \(bind: try encode(record.document)), \(bind: record.grants), \(bind: record.version), \
            \(bind: record.createdAt), \(bind: record.updatedAt), \(bind: record.deprovisionedAt), \(bind: record.userName.lowercased()))
            """).run()
    }

    /// Writes `record` over the stored person if it is still at `version` (another request may
    /// have changed it meanwhile); returns whether it was.
    package static func update(_ record: DirectoryUserRecord, from version: Int, on db: any Database) async throws -> Bool {
        let rows = try await sql(db).raw("""
            UPDATE directory_users SET user_name = \(bind: record.userName), user_name_key = \(bind: record.userName.lowercased()), \
            external_id = \(bind: record.externalID), display_name = \(bind: record.displayName), login = \(bind: record.login), \
            active = \(bind: record.active), badge_digest = \(bind: record.badgeDigest), badge_sealed = \(bind: record.badgeSealed), \
            document = \(bind: try encode(record.document)), grants = \(bind: record.grants), version = \(bind: record.version), \
            updated_at = \(bind: record.updatedAt), deprovisioned_at = \(bind: record.deprovisionedAt)
            WHERE id = \(bind: record.id) AND version = \(bind: version) RETURNING id
            """).all()
        return !rows.isEmpty
    }

    /// Writes `record` over the stored person if it is still at `version`, in one transaction that
    /// first checks that no other person has its `userName` (``userNameTaken(_:except:on:)``),
    /// throwing `taken` when one does; returns whether it was written.
    package static func update(_ record: DirectoryUserRecord, from version: Int, refusingTakenName taken: SCIMError,
                               on db: any Database) async throws -> Bool {
        try await db.inTransaction { db -> Bool in
            if try await userNameTaken(record.userName, except: record.id, on: db) {
                throw taken
            }
            return try await update(record, from: version, on: db)
        }
    }

    /// Deletes a person as SCIM sees them, in one transaction: their memberships go, their row
    /// stays marked deleted and inactive (its `userName` free for someone else, its document
    /// emptied), so that their badge is refused from then on.
    package static func deleteUser(_ id: UUID, at now: Date, on db: any Database) async throws {
        try await db.inTransaction { db in
            let sql = try Self.sql(db)
            try await sql.raw("DELETE FROM directory_members WHERE member_id = \(bind: id)").run()
            try await sql.raw("""
                UPDATE directory_users SET active = \(bind: false), deleted_at = \(bind: now), deprovisioned_at = COALESCE(deprovisioned_at, \(bind: now)), \
                user_name_key = \(bind: "deleted:" + id.uuidString.lowercased()), badge_sealed = NULL, document = '{}', grants = '', updated_at = \(bind: now)
                WHERE id = \(bind: id)
                """).run()
        }
    }

    /// A device's name, and everyone provisioned with the badge whose keyed digest is `digest`
    /// (active or not, with their logins), in one statement: a badge check-out reads both. Nil for
    /// an unknown device.
    package static func device(_ deviceID: UUID, badgeHolders digest: String,
                               on db: any Database) async throws -> (name: String, holders: [(active: Bool, login: String?)])? {
        let rows = try await sql(db).raw("""
            SELECT d.name AS name, u.active AS active, u.login AS login FROM devices d \
            LEFT JOIN directory_users u ON u.badge_digest = \(bind: digest) WHERE d.id = \(bind: deviceID)
            """).all()
        guard let first = rows.first else { return nil }
        let holders = try rows.compactMap { row -> (active: Bool, login: String?)? in
            // No one with the badge: the join's one row names no person.
            guard let active = try row.decode(column: "active", as: Bool?.self) else { return nil }
            return (active, try row.decode(column: "login", as: String?.self))
        }
        return (try first.decode(column: "name", as: String.self), holders)
    }

    /// The dashboard grants the directory gives the person with `login`, if one is provisioned.
    package static func grants(login: String, on db: any Database) async throws -> String? {
        try await sql(db).raw("SELECT grants FROM directory_users WHERE login = \(bind: login.lowercased()) AND active = \(bind: true)")
            .first()?.decode(column: "grants", as: String.self)
    }

    // MARK: groups

    static let groupColumns = "id, display_name, external_id, document, version, created_at, updated_at"

    static func group(from row: any SQLRow) throws -> DirectoryGroupRecord {
        DirectoryGroupRecord(id: try row.decode(column: "id", as: UUID.self), displayName: try row.decode(column: "display_name", as: String.self),
                             externalID: try row.decode(column: "external_id", as: String?.self),
                             document: try decode(try row.decode(column: "document", as: String.self)),
                             version: try row.decode(column: "version", as: Int.self),
                             createdAt: try row.decode(column: "created_at", as: Date.self), updatedAt: try row.decode(column: "updated_at", as: Date.self))
    }

    package static func group(_ id: UUID, on db: any Database) async throws -> DirectoryGroupRecord? {
        try await sql(db).raw("SELECT \(unsafeRaw: groupColumns) FROM directory_groups WHERE id = \(bind: id)").first().map(group(from:))
    }

    package static func groups(displayName: String? = nil, externalID: String? = nil, on db: any Database) async throws -> [DirectoryGroupRecord] {
        var conditions: [SQLQueryString] = []
        if let displayName { conditions.append("display_name_key = \(bind: displayName.lowercased())") }
        if let externalID { conditions.append("external_id = \(bind: externalID)") }
        let clause: SQLQueryString = conditions.isEmpty ? "" : "WHERE \(SQLList(conditions, separator: SQLRaw(" AND ")))"
        return try await sql(db).raw("SELECT \(unsafeRaw: groupColumns) FROM directory_groups \(clause) ORDER BY created_at, id").all().map(group(from:))
    }

    package static func insert(_ record: DirectoryGroupRecord, on db: any Database) async throws {
        try await sql(db).raw("""
            INSERT INTO directory_groups (\(unsafeRaw: groupColumns), display_name_key) VALUES (\(bind: record.id), \(bind: record.displayName), \
            \(bind: record.externalID), \(bind: try encode(record.document)), \(bind: record.version), \(bind: record.createdAt), \
            \(bind: record.updatedAt), \(bind: record.displayName.lowercased()))
            """).run()
    }

    /// Inserts the group and makes its members `members`, in one transaction; returns the people
    /// who joined.
    package static func insert(_ record: DirectoryGroupRecord, members: Set<DirectoryMember>, on db: any Database) async throws -> Set<UUID> {
        try await db.inTransaction { db in
            try await insert(record, on: db)
            return try await setMembers(members, of: record.id, on: db)
        }
    }

    package static func update(_ record: DirectoryGroupRecord, from version: Int, on db: any Database) async throws -> Bool {
        let rows = try await sql(db).raw("""
            UPDATE directory_groups SET display_name = \(bind: record.displayName), display_name_key = \(bind: record.displayName.lowercased()), \
            external_id = \(bind: record.externalID), document = \(bind: try encode(record.document)), version = \(bind: record.version), \
            updated_at = \(bind: record.updatedAt)
            WHERE id = \(bind: record.id) AND version = \(bind: version) RETURNING id
            """).all()
        return !rows.isEmpty
    }

    /// Writes `record` over the stored group if it is still at `version` and makes its members
    /// `members`, in one transaction; returns the people who joined or left, or nil (nothing
    /// written) when another request changed the group meanwhile.
    package static func update(_ record: DirectoryGroupRecord, from version: Int, members: Set<DirectoryMember>,
                               on db: any Database) async throws -> Set<UUID>? {
        try await db.inTransaction { db -> Set<UUID>? in
            guard try await update(record, from: version, on: db) else { return nil }
            return try await setMembers(members, of: record.id, on: db)
        }
    }

    /// Deletes the group and its memberships, in one transaction.
    package static func deleteGroup(_ id: UUID, on db: any Database) async throws {
        try await db.inTransaction { db in
            let sql = try Self.sql(db)
            try await sql.raw("DELETE FROM directory_members WHERE group_id = \(bind: id) OR member_id = \(bind: id)").run()
            try await sql.raw("DELETE FROM directory_groups WHERE id = \(bind: id)").run()
        }
    }

    // MARK: memberships

    package static func members(of group: UUID, on db: any Database) async throws -> [DirectoryMember] {
        try await sql(db).raw("SELECT member_id, member_type FROM directory_members WHERE group_id = \(bind: group) ORDER BY member_id").all().map {
            DirectoryMember(id: try $0.decode(column: "member_id", as: UUID.self),
                            kind: DirectoryMember.Kind(rawValue: try $0.decode(column: "member_type", as: String.self)) ?? .user)
        }
    }

    /// Makes `group`'s members exactly `members`; returns the people who joined or left.
    package static func setMembers(_ members: Set<DirectoryMember>, of group: UUID, on db: any Database) async throws -> Set<UUID> {
        let sql = try sql(db)
        let before = Set(try await self.members(of: group, on: db))
        let gone = before.subtracting(members), added = members.subtracting(before)
        for member in gone {
            try await sql.raw("DELETE FROM directory_members WHERE group_id = \(bind: group) AND member_id = \(bind: member.id)").run()
        }
        for member in added {
            try await sql.raw("""
                INSERT INTO directory_members (group_id, member_id, member_type) VALUES (\(bind: group), \(bind: member.id), \(bind: member.kind.rawValue))
                """).run()
        }
        return Set(gone.union(added).filter { $0.kind == .user }.map(\.id))
    }

    /// The groups `users` belong to directly, by person.
    package static func groups(of users: [UUID], on db: any Database) async throws -> [UUID: [DirectoryGroupRecord]] {
        guard !users.isEmpty else { return [:] }
        var found: [UUID: [DirectoryGroupRecord]] = [:]
        for chunk in stride(from: 0, to: users.count, by: 500).map({ Array(users[$0 ..< min($0 + 500, users.count)]) }) {
            let rows = try await sql(db).raw("""
                SELECT m.member_id, \(unsafeRaw: groupColumns.split(separator: ",").map { "g." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                FROM directory_members m JOIN directory_groups g ON g.id = m.group_id
                WHERE m.member_id IN (\(SQLList(chunk.map { SQLBind($0) }))) ORDER BY g.display_name_key
                """).all()
            for row in rows { found[try row.decode(column: "member_id", as: UUID.self), default: []].append(try group(from: row)) }
        }
        return found
    }

    /// Which of `ids` are people and which groups.
    package static func kinds(of ids: [UUID], on db: any Database) async throws -> [UUID: DirectoryMember.Kind] {
        guard !ids.isEmpty else { return [:] }
        let list = SQLList(ids.map { SQLBind($0) })
        var kinds: [UUID: DirectoryMember.Kind] = [:]
        for row in try await sql(db).raw("SELECT id FROM directory_users WHERE id IN (\(list)) AND deleted_at IS NULL").all() { kinds[try row.decode(column: "id", as: UUID.self)] = .user }
        for row in try await sql(db).raw("SELECT id FROM directory_groups WHERE id IN (\(list))").all() { kinds[try row.decode(column: "id", as: UUID.self)] = .group }
        return kinds
    }

    // MARK: the People page

    /// The newest `limit` provisioned people, with what the page shows of each (``DirectoryListing``):
    /// one statement, and one more for the devices they hold.
    package static func listings(newest limit: Int, on db: any Database) async throws -> [DirectoryListing] {
        let sql = try sql(db)
        let rows = try await sql.raw("""
            SELECT u.id, u.display_name, u.login, u.user_name, u.active, u.badge_digest, u.grants, u.deprovisioned_at, u.updated_at,
              (SELECT COUNT(*) FROM people p WHERE LOWER(p.email) = u.login) AS signs_in
            FROM directory_users u WHERE u.deleted_at IS NULL ORDER BY u.updated_at DESC, u.id LIMIT \(bind: limit)
            """).all()
        var listings = try rows.map { row in
            DirectoryListing(id: try row.decode(column: "id", as: UUID.self), displayName: try row.decode(column: "display_name", as: String?.self),
                             login: try row.decode(column: "login", as: String?.self), userName: try row.decode(column: "user_name", as: String.self),
                             active: try row.decode(column: "active", as: Bool.self),
                             hasBadge: try row.decode(column: "badge_digest", as: String?.self) != nil,
                             grants: try row.decode(column: "grants", as: String.self), signsIn: try row.decode(column: "signs_in", as: Int.self) > 0,
                             devicesHeld: [], deprovisionedAt: try row.decode(column: "deprovisioned_at", as: Date?.self),
                             updatedAt: try row.decode(column: "updated_at", as: Date.self))
        }
        let logins = listings.compactMap(\.login)
        guard !logins.isEmpty else { return listings }
        let held = try await sql.raw("""
            SELECT LOWER(us.email) AS login, d.name FROM custodies c JOIN users us ON us.id = c.user_id JOIN devices d ON d.id = c.device_id
            WHERE c.checked_in_at IS NULL AND LOWER(us.email) IN (\(binds: logins)) ORDER BY d.name
            """).all()
        var devices: [String: [String]] = [:]
        for row in held { devices[try row.decode(column: "login", as: String.self), default: []].append(try row.decode(column: "name", as: String.self)) }
        for index in listings.indices { listings[index].devicesHeld = listings[index].login.flatMap { devices[$0] } ?? [] }
        return listings
    }

    // MARK: Shared Signals

    /// Queues the Shared Signals events `events` makes (``SharedSignalsOutbox``); nothing on a
    /// database that does not speak SQL.
    package static func enqueueSignals(on db: any Database, now: Date, _ events: () async throws -> [SecurityEvent]) async throws {
        guard let sql = db as? any SQLDatabase else { return }
        try await SharedSignalsOutbox.enqueue(on: sql, now: now, events)
    }
}
