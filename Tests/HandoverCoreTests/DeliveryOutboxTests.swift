import FluentKit
import Foundation
@testable import HandoverCore
import HandoverProtocol
import HandoverSchema
import SQLKit
import Testing

/// The one outbox every kind of delivery uses (webhooks, Back-Channel Logout, MDM commands), on
/// a real table of the domain's schema, on SQLite and PostgreSQL.
@Suite(.timeLimit(.minutes(5))) struct DeliveryOutboxTests {
    /// A pending webhook delivery; its id.
    static func owed(on database: DomainDatabase) async throws -> UUID {
        let hook = Webhook()
        hook.url = "https://hooks.example.com/handover"
        hook.secret = "whsec_test"
        hook.events = ["run.completed"]
        hook.createdAt = database.clock.now()
        try await hook.create(on: database.db)
        let delivery = WebhookDelivery()
        delivery.webhookID = try hook.requireID()
        delivery.event = "run.completed"
        delivery.payload = "{}"
        delivery.status = .pending
        delivery.attempts = 0
        delivery.nextAttemptAt = database.clock.now()
        delivery.createdAt = database.clock.now()
        delivery.version = 0
        try await delivery.create(on: database.db)
        return try delivery.requireID()
    }

    static func outbox(maxAttempts: Int = 2) -> DeliveryOutbox {
        DeliveryOutbox(table: WebhookDelivery.schema, pendingStatus: WebhookDeliveryStatus.pending.rawValue, lease: 30, maxAttempts: maxAttempts)
    }

    @Test(arguments: DomainStore.available) func aLeaseCountsTheAttemptAndOnlyOnePassGetsIt(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let id = try await Self.owed(on: database)
            let outbox = Self.outbox()
            let now = database.clock.now()
            #expect(try await outbox.lease(id, version: 0, at: now, sql: database.sql) == .attempt(1))
            #expect(try await outbox.lease(id, version: 0, at: now, sql: database.sql) == .taken, "a second pass with the same version")
            let row = try #require(try await WebhookDelivery.find(id, on: database.db))
            #expect(row.attempts == 1 && row.version == 1)
            #expect(row.nextAttemptAt.timeIntervalSince(now) == 30, "due again when the lease runs out")
        }
    }

    @Test(arguments: DomainStore.available) func anAttemptCutOffAfterTheLastIsGivenUp(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let id = try await Self.owed(on: database)
            let outbox = Self.outbox(maxAttempts: 2)
            let now = database.clock.now()
            #expect(try await outbox.lease(id, version: 0, at: now, sql: database.sql) == .attempt(1))
            #expect(try await outbox.lease(id, version: 1, at: now, sql: database.sql) == .attempt(2))
            // Both were cut off (no record): the third lease finds the last allowed one used up.
            #expect(try await outbox.lease(id, version: 2, at: now, sql: database.sql) == .exhausted)
        }
    }

    @Test(arguments: DomainStore.available) func aRecordKeepsTheOutcomeAndTheKindsOwnColumns(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let id = try await Self.owed(on: database)
            let outbox = Self.outbox()
            let now = database.clock.now()
            _ = try await outbox.lease(id, version: 0, at: now, sql: database.sql)
            try await outbox.record(id, attempt: 1, status: WebhookDeliveryStatus.pending.rawValue, statusCode: 503,
                                    failure: String(repeating: "x", count: 600), nextAttemptAt: now.addingTimeInterval(outbox.backoff(afterAttempt: 1)),
                                    sql: database.sql, setting: [.init("delivered_at", Date?.none)])
            var row = try #require(try await WebhookDelivery.find(id, on: database.db))
            #expect(row.status == .pending && row.lastStatusCode == 503 && row.lastError?.count == 500 && row.version == 2)
            #expect(row.nextAttemptAt.timeIntervalSince(now) == 2)
            _ = try await outbox.lease(id, version: 2, at: now, sql: database.sql)
            try await outbox.record(id, attempt: 2, status: WebhookDeliveryStatus.delivered.rawValue, statusCode: 200, failure: nil,
                                    nextAttemptAt: now, sql: database.sql, setting: [.init("delivered_at", now)])
            row = try #require(try await WebhookDelivery.find(id, on: database.db))
            #expect(row.status == .delivered && row.deliveredAt == now && row.lastError == nil && row.attempts == 2)
        }
    }

    @Test func theBackOffDoublesUpToAnHour() {
        #expect((1...13).map { Self.outbox().backoff(afterAttempt: $0) } == [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600, 3600])
    }

    /// A kind brings its own policy: the SIEM's streams wait 1 s after the first failure and at
    /// most five minutes, so that a collector back from a restart is caught up within five.
    @Test func aKindsBackOffStartsAndStopsWhereItSays() {
        let siem = DeliveryOutbox.Backoff(first: 1, cap: 300)
        #expect((1...11).map { siem.delay(afterAttempt: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        #expect(siem.delay(afterAttempt: Int.max) == 300, "no overflow after many failures")
        #expect(DeliveryOutbox.Backoff.standard.delay(afterAttempt: 0) == 2, "attempt 0 reads as the first")
    }

    /// A poll (RFC 8936): the rows handed out count an attempt and stay owed (nothing is leased);
    /// the ones the receiver answers for are settled, and only rows of the scope and still owed.
    @Test(arguments: DomainStore.available) func aPollCountsWhatItHandsOutAndSettlesWhatIsAnswered(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let id = try await Self.owed(on: database)
            let other = try await Self.owed(on: database)
            let outbox = Self.outbox()
            let hook = try #require(try await WebhookDelivery.find(id, on: database.db)).webhookID
            try await outbox.countHandedOut(["run.completed", "run.failed"], by: "event", where: .init("webhook_id", hook), sql: database.sql)
            var row = try #require(try await WebhookDelivery.find(id, on: database.db))
            #expect(row.attempts == 1 && row.version == 1 && row.status == .pending, "handed out, still owed")
            try await outbox.settle(["run.completed"], by: "event", where: .init("webhook_id", hook), status: WebhookDeliveryStatus.failed.rawValue,
                                    failure: "invalid_key: " + String(repeating: "k", count: 600), sql: database.sql)
            row = try #require(try await WebhookDelivery.find(id, on: database.db))
            #expect(row.status == .failed && row.lastError?.hasPrefix("invalid_key: ") == true && row.lastError?.count == 500 && row.version == 2)
            try await outbox.settle(["run.completed"], by: "event", where: .init("webhook_id", hook), status: WebhookDeliveryStatus.delivered.rawValue,
                                    failure: nil, sql: database.sql)
            #expect(try #require(try await WebhookDelivery.find(id, on: database.db)).status == .failed, "a settled row is settled once")
            let untouched = try #require(try await WebhookDelivery.find(other, on: database.db))
            #expect(untouched.attempts == 0 && untouched.status == .pending, "another webhook's row is outside the scope")
        }
    }
}
