import FluentKit
import Foundation
import HandoverSchema
import NIOConcurrencyHelpers
import SQLKit
import TransparencyLog

/// Appends events to the audit log in the caller's transaction: nothing is acknowledged that the
/// log does not hold, and nothing is in the log that was not committed.
///
/// Indexes come from one counter row (`audit_head`), moved by the appending statement itself:
/// on PostgreSQL its row lock orders two instances' appends, so they share one gapless
/// sequence and the log never forks; on SQLite the one writer does the same.
package enum AuditTrail {
    /// Appends `events`, in order; returns the index of the first on PostgreSQL (-1 on SQLite,
    /// and inside ``batch(on:now:_:)``, which appends them at its end).
    @discardableResult
    package static func append(_ events: [AuditEvent], on sql: any SQLDatabase, now: Date) async throws -> Int {
        guard !events.isEmpty else { return -1 }
        if let batch = collecting {
            batch.events.withLockedValue { $0 += events }
            return -1
        }
        let leaves = try events.map { try $0.leaf() }
        // SQLite: one statement. Its one writer orders appends, and a trigger moves the counter
        // row with each inserted entry (``AddAuditAppendTrigger``), so the entries' indexes follow the
        // counter as it stood when the statement began (SQLite evaluates a subquery that does
        // not refer to the outer row once a statement).
        // 7 binds a row: well within SQLite's and PostgreSQL's limits at 500 rows a statement.
        let sqlite = sql.dialect.name == "sqlite"
        var first = -1
        for chunkStart in stride(from: 0, to: events.count, by: 500) {
            let chunk = chunkStart..<min(chunkStart + 500, events.count)
            // VALUES names its columns column1, column2, …; each row's offset in the chunk first.
            let rows = chunk.map { i -> SQLQueryString in
                let event = events[i], leaf = leaves[i]
                return """
                    (\(bind: i - chunkStart), \(bind: event.type), \(bind: leaf), \(bind: Data(MerkleHash.leaf(leaf).bytes)), \
                    \(bind: event.run), \(bind: event.device), \(bind: now))
                    """
            }
            if sqlite {
                try await sql.raw("""
                    INSERT INTO audit_entries (seq, type, leaf, leaf_hash, run_id, device_id, site, created_at)
                    SELECT (SELECT size FROM audit_head WHERE id = 1) + e.column1, e.column2, e.column3, e.column4, e.column5, e.column6,
                    (SELECT site FROM devices WHERE id = e.column6), e.column7 FROM (VALUES \(SQLList(rows))) AS e
                    """).run()
                continue
            }
            // PostgreSQL: the counter moves and the entries go in in one statement, so the
            // counter row's lock, which every instance's appends wait for, is taken by the last
            // statement before COMMIT. The entries' indexes follow the counter as the UPDATE left
            // it; RETURNING gives the first.
            let appended = try await sql.raw("""
                WITH head AS (UPDATE audit_head SET size = size + \(bind: chunk.count) WHERE id = 1 RETURNING size - \(bind: chunk.count) AS start),
                added AS (INSERT INTO audit_entries (seq, type, leaf, leaf_hash, run_id, device_id, site, created_at)
                SELECT head.start + e.column1::bigint, e.column2::text, e.column3::bytea, e.column4::bytea, e.column5::uuid, e.column6::uuid,
                (SELECT site FROM devices WHERE id = e.column6::uuid), e.column7::timestamptz
                FROM head, (VALUES \(SQLList(rows))) AS e RETURNING seq)
                SELECT MIN(seq) AS first FROM added
                """).first()
            guard let low = try appended?.decode(column: "first", as: Int?.self) else { throw AuditLogError.noHead }
            if first < 0 { first = low }
        }
        return first
    }

    /// The events of one ``batch(on:now:_:)``.
    final class Batch: Sendable {
        let events = NIOLockedValueBox<[AuditEvent]>([])
    }

    @TaskLocal static var collecting: Batch?

    /// Runs `body`, and appends every event it appends in one append at its end, in their order:
    /// the steps and receipts of a batch of finished runs cost two statements, not two per kind.
    package static func batch<T>(on db: Database, now: Date, _ body: () async throws -> T) async throws -> T {
        let batch = Batch()
        let result = try await $collecting.withValue(batch) { try await body() }
        if let sql = db as? any SQLDatabase { try await append(batch.events.withLockedValue { $0 }, on: sql, now: now) }
        return result
    }

    /// Appends `events` on `database`, in a transaction of their own unless the caller is in one.
    package static func append(_ events: [AuditEvent], on database: Database, now: Date) async throws {
        try await database.inTransaction { db in
            guard let sql = db as? any SQLDatabase else { return }
            try await append(events, on: sql, now: now)
        }
    }
}

/// Why the audit log could not do what was asked.
package enum AuditLogError: Error, CustomStringConvertible {
    /// The counter row is missing: the schema was not migrated.
    case noHead
    /// An entry's stored bytes do not hash to its stored leaf hash, or an index is missing.
    case entry(Int, String)

    package var description: String {
        switch self {
        case .noHead: "the audit log's counter row (audit_head) is missing: run the migrations"
        case .entry(let index, let why): "audit entry \(index): \(why)"
        }
    }
}

extension AdminEvent {
    /// An event; `who` and `detail` are kept within 200 and 1,000 bytes, control characters
    /// escaped (``StrangerText``): the audit log can never shed an entry, whatever text reached it.
    package convenience init(at: Date, kind: Kind, personID: UUID? = nil, who: String, detail: String) {
        self.init()
        self.at = at
        self.kind = kind.rawValue
        self.personID = personID
        self.who = StrangerText.bounded(who, limit: 200)
        self.detail = StrangerText.bounded(detail, limit: 1_000)
    }

    /// Writes the event and its audit log entry (`admin.<kind>`) in one transaction. The entry
    /// names a person by issuer and subject, a key by its name and prefix, and a refused
    /// sign-in's would-be person not at all.
    package func record(on database: Database) async throws {
        let (personID, kind, who, at, detail) = (self.personID, self.kind, self.who, self.at, self.detail)
        try await database.inTransaction { db in
            try await self.create(on: db)
            guard let sql = db as? any SQLDatabase else { return }
            let actor: AuditActor
            if let personID, let person = try await Person.find(personID, on: db) {
                actor = .person(issuer: person.issuer, subject: person.subject)
            } else {
                switch Kind(rawValue: kind) {
                case .refused: actor = AuditActor(kind: "unknown")
                case .loggedOutByProvider: actor = AuditActor(kind: "provider")
                case .provisioned, .deprovisioned: actor = AuditActor(kind: "scim", name: who)
                default: actor = AuditActor(kind: "key", name: who)
                }
            }
            try await AuditTrail.append([AuditEvent(type: "admin.\(kind)", at: at, actor: actor, detail: ["detail": detail])],
                                        on: sql, now: at)
        }
    }
}
