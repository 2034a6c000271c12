import Foundation
@testable import HandoverCore
import SQLKit
import Testing

/// A SIEM destination's cursor as a row of the one outbox (issue 65): leased at the version its
/// batch was read at, backed off 1 s, 2 s … at most five minutes, never given up, and written
/// only when there is something to send. On SQLite and PostgreSQL, driven by the test clock.
@Suite(.timeLimit(.minutes(5))) struct SIEMStreamCursorTests {
    /// A destination that refuses while `down`, and keeps what it took.
    final class Collector: SIEMDestination, @unchecked Sendable {
        private let lock = NSLock()
        private var taken: [SIEMMessage] = []
        private var refusing = false
        let name: String
        init(name: String = "collector") { self.name = name }
        var messages: [SIEMMessage] { lock.withLock { taken } }
        var down: Bool {
            get { lock.withLock { refusing } }
            set { lock.withLock { refusing = newValue } }
        }
        func send(_ messages: [SIEMMessage]) async throws {
            struct Refused: Error, CustomStringConvertible { var description: String { "connection refused" } }
            try lock.withLock {
                if refusing { throw Refused() }
                taken += messages
            }
        }
    }

    static func append(_ count: Int, on database: DomainDatabase) async throws {
        let events = (0..<count).map { AuditEvent(type: "admin.test", at: database.clock.now(), actor: .server, detail: ["n": "\($0)"]) }
        _ = try await AuditTrail.append(events, on: database.sql, now: database.clock.now())
    }

    static func cursor(_ name: String, on database: DomainDatabase) async throws -> (delivered: Int, attempts: Int, version: Int, nextAttemptAt: Date, lastError: String?) {
        let row = try #require(try await database.sql.raw("""
            SELECT delivered, attempts, version, next_attempt_at, last_error FROM siem_cursors WHERE destination = \(bind: name)
            """).first())
        return (try row.decode(column: "delivered", as: Int.self), try row.decode(column: "attempts", as: Int.self),
                try row.decode(column: "version", as: Int.self), try row.decode(column: "next_attempt_at", as: Date.self),
                try row.decode(column: "last_error", as: String?.self))
    }

    @Test(arguments: DomainStore.available) func aRefusedBatchBacksOffAndIsSentAgainWhole(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let collector = Collector()
            let stream = SIEMStream(destinations: [collector], sql: database.sql, clock: database.clock)
            try await Self.append(3, on: database)
            collector.down = true
            let start = database.clock.now()
            for (attempt, wait) in [(1, 1.0), (2, 2.0), (3, 4.0)] {
                #expect(try await stream.pass() == 0)
                let cursor = try await Self.cursor("collector", on: database)
                #expect(cursor.delivered == 0 && cursor.attempts == attempt, "attempt \(attempt) counted, the cursor stays")
                #expect(cursor.nextAttemptAt.timeIntervalSince(database.clock.now()) == wait, "attempt \(attempt): back off \(wait) s")
                #expect(cursor.lastError == "connection refused")
                #expect(try await stream.pass() == 0, "not due before its back-off runs out")
                database.clock.advance(by: wait)
            }
            collector.down = false
            #expect(try await stream.pass() == 3, "the same batch, whole")
            let cursor = try await Self.cursor("collector", on: database)
            #expect(cursor.delivered == 3 && cursor.attempts == 0 && cursor.lastError == nil, "taken: moved on, the count starts again")
            #expect(collector.messages.count == 3)
            #expect(database.clock.now().timeIntervalSince(start) == 7)
        }
    }

    @Test(arguments: DomainStore.available) func aCursorWithNothingOwedIsNotWritten(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let collector = Collector()
            let stream = SIEMStream(destinations: [collector], sql: database.sql, clock: database.clock)
            try await Self.append(2, on: database)
            #expect(try await stream.pass() == 2)
            let before = try await Self.cursor("collector", on: database)
            for _ in 0..<3 { #expect(try await stream.pass() == 0) }
            let after = try await Self.cursor("collector", on: database)
            #expect(after.version == before.version && after.attempts == 0, "no lease taken, no attempt counted")
        }
    }

    /// Two instances read the same cursor; only the one whose lease lands at the version it read
    /// sends, and the other sends nothing (at least once, never the same batch twice at once).
    @Test(arguments: DomainStore.available) func aCursorLeasedByAnotherInstanceIsNotSentAgain(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let collector = Collector()
            let stream = SIEMStream(destinations: [collector], sql: database.sql, clock: database.clock)
            try await Self.append(2, on: database)
            _ = try await stream.pass()  // the cursor exists, two sent
            try await Self.append(1, on: database)
            let read = try await Self.cursor("collector", on: database)
            // Another instance leases it first.
            #expect(try await SIEMStream.outbox.lease("collector", version: read.version, at: database.clock.now(), sql: database.sql) == .attempt(1))
            #expect(try await stream.pass() == 0, "leased for a minute by the other")
            database.clock.advance(by: 60)
            #expect(try await stream.pass() == 1, "the other was cut off: due again when its lease ran out")
            let cursor = try await Self.cursor("collector", on: database)
            #expect(cursor.delivered == 3 && cursor.attempts == 0)
        }
    }
}
