import FluentKit
import Foundation
@testable import HandoverCore
import SQLKit
import Testing

/// Issue 63's stores on the domain's schema, on SQLite and PostgreSQL: the audit log's alarms
/// (one open alarm per finding; a run's finding acknowledged is not raised again, a history's is)
/// and the replay cache (a token acts once; expired ones are pruned).
@Suite(.timeLimit(.minutes(5))) struct ProofStoresTests {
    @Test(arguments: DomainStore.available) func anAlarmIsRaisedOnceWhileOpen(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let now = database.clock.now()
            #expect(try await AuditAlarms.raise(.history, "entry 3 is missing", on: database.sql, now: now) != nil)
            #expect(try await AuditAlarms.raise(.history, "entry 3 is missing", on: database.sql, now: now) == nil, "open already")
            #expect(try await AuditAlarms.raise(.records, "run r: differs", on: database.sql, now: now) != nil)
            #expect(Set(try await AuditAlarms.open(on: database.sql).map(\.finding)) == ["entry 3 is missing", "run r: differs"])
            let acknowledged = try await AuditAlarms.acknowledge(by: "Ada", reason: "drill", on: database.sql, now: now)
            #expect(acknowledged.count == 2)
            #expect(try await AuditAlarms.open(on: database.sql).isEmpty)
            #expect(try await AuditAlarms.raise(.records, "run r: differs", on: database.sql, now: now) == nil, "a run's finding, acknowledged, stays so")
            #expect(try await AuditAlarms.raise(.history, "entry 3 is missing", on: database.sql, now: now) != nil, "a history's is new after the epoch")
        }
    }

    @Test(arguments: DomainStore.available) func aTokenActsOnceUntilItExpires(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let now = database.clock.now()
            let claim: (String, String) async throws -> Bool = { issuer, jti in
                try await TokenReplayCache.claim(.logoutToken, issuer: issuer, jti: jti, expiresAt: now.addingTimeInterval(120), on: database.sql, now: now)
            }
            #expect(try await claim("https://idp.example.com", "j-1"))
            #expect(try await claim("https://idp.example.com", "j-1") == false, "the same issuer and jti: a replay")
            #expect(try await claim("https://other.example.com", "j-1"), "another issuer's jti is another token")
            try await TokenReplayCache.release(issuer: "https://other.example.com", jti: "j-1", on: database.sql)
            #expect(try await claim("https://other.example.com", "j-1"), "released, it may act again")
            #expect(try await TokenReplayCache.prune(on: database.sql, now: now.addingTimeInterval(120)) == 0, "kept through its exp and the skew")
            #expect(try await TokenReplayCache.prune(on: database.sql, now: now.addingTimeInterval(181)) == 2)
        }
    }
}
