import FluentKit
import Foundation
@testable import HandoverCore
import HandoverSchema
import Logging
import SQLKit
import Testing

/// ``CustodyLedger``'s batch of launchers' check-outs: its rules, applied in order within one
/// batch, and what the batch costs the one writer.
@Suite(.timeLimit(.minutes(5))) struct CustodyLedgerTests {
    /// Before: each check-out of a batch made five statements through Fluent's models (the
    /// person, their open custodies, the device's, the device's site, the new custody), plus two
    /// for a login seen for the first time; a shift's check-outs spent the writer's time in
    /// Fluent's reflection of each model. Now a batch of 64 is a few statements in all.
    @Test(arguments: DomainStore.available) func aBatchOfCheckOutsIsAFewStatementsWhateverItsSize(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            var batch: [CustodyLedger.CheckOutRequest] = []
            for index in 1...64 {
                batch.append(.init(device: try await database.device("ward-7-phone-\(index)"), person: .login("Nurse-\(index)@hospital.example"),
                                   method: .badge))
            }
            let statements = StatementCount()
            let counting = Logger(label: "statements") { _ in StatementCounter(count: statements) }
            let results = try await database.withSeparateConnections(logging: counting) { counted in
                await CustodyLedger().checkOut(batch, on: counted, now: database.clock.now())
            }
            #expect(results.allSatisfy { (try? $0.get()) != nil }, "\(results)")
            // BEGIN, the devices' lock, the people, the new people, the open custodies, the
            // sites, the new custodies, COMMIT; PostgreSQL adds its advisory locks on the logins
            // and on the people (one statement each). Before: 387 on SQLite, 515 on PostgreSQL.
            let expected = store == .postgres ? 10 : 8
            #expect((6...expected).contains(statements.value), "\(statements.value) statements for 64 check-outs")
            let people = try await database.sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self)
            #expect(people == 64, "each login made once, lowercased")
        }
    }

    /// In one batch, in order: a device taken over by the next person (the first custody,
    /// written in the same batch, ends without a hand-over); the first person, free again, takes
    /// another device; a second tap keeps the custody in progress; a third device is refused,
    /// naming the one held; an unknown person is refused alone.
    @Test(arguments: DomainStore.available) func itsRulesHoldWithinOneBatch(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let first = try await database.device("ward-7-phone-1"), second = try await database.device("ward-7-phone-2")
            let third = try await database.device("ward-7-phone-3")
            let now = database.clock.now()
            let results = await CustodyLedger().checkOut([
                .init(device: first, person: .login("ada@hospital.example"), method: .badge),
                .init(device: first, person: .login("bo@hospital.example"), method: .badge),
                .init(device: second, person: .login("ADA@hospital.example"), method: .badge, badgeDigest: "digest"),
                .init(device: first, person: .login("bo@hospital.example"), method: .badge),
                .init(device: third, person: .user(UUID()), method: .launcher),
                .init(device: third, person: .login("ada@hospital.example"), method: .badge),
            ], on: database.db, now: now)
            let custodies = results.map { try? $0.get() }
            #expect(custodies[0]?.deviceID == first && custodies[0]?.checkedInAt == nil)
            #expect(custodies[1]?.deviceID == first && custodies[1]?.personEmail == "bo@hospital.example")
            #expect(custodies[2]?.deviceID == second && custodies[2]?.userID == custodies[0]?.userID && custodies[2]?.badgeDigest == "digest")
            #expect(custodies[3]?.id == custodies[1]?.id, "a second tap keeps the custody in progress")
            #expect((results[4].failure as? DomainError)?.code == "invalid_access_token")
            let refusal = results[5].failure as? DomainError
            #expect(refusal?.code == "already_holds_a_device" && refusal?.reason.contains("still holds ward-7-phone-2") == true, "\(String(describing: refusal))")

            let stored = try await Custody.query(on: database.db).sort(\.$checkedOutAt).all()
            #expect(stored.count == 3)
            let ended = try #require(stored.first { $0.id == custodies[0]?.id })
            #expect(ended.checkedInAt != nil && ended.endedWithoutRun == "the next person signed in before a hand-over" && ended.runID == nil)
            let held: Set<UUID> = Set(stored.filter { $0.checkedInAt == nil }.map(\.deviceID))
            #expect(held == [first, second])
            #expect(try await CustodyLedger.holder(of: first, on: database.db)?.personEmail == "bo@hospital.example")

            // The next batch sees what this one wrote: Bo, on the second device, takes it over from Ada.
            let next = await CustodyLedger().checkOut([.init(device: second, person: .login("bo@hospital.example"), method: .badge)],
                                                      on: database.db, now: now)
            #expect((next[0].failure as? DomainError)?.code == "already_holds_a_device")
            let people = try await database.sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self)
            #expect(people == 2)
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
