import FluentKit
import Foundation
@testable import HandoverCore
import HandoverProtocol
import SQLKit
import Testing

/// The deadlines of a batch are reissued in bulk (two statements, whatever their number), each
/// item exactly as it was reissued alone: one more attempt, a new deadline, and a row for the
/// run's timeline. A shift change past the server's capacity sends nearly every item this way.
@Suite(.timeLimit(.minutes(5))) struct DeadlineReissueTests {
    @Test(arguments: DomainStore.available) func aBatchIsReissuedAndAnItemThatChangedMeanwhileIsLeftOut(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs()
            let apps = [try await database.targetApp("mail"), try await database.targetApp("chart"), try await database.targetApp("pager")]
            var started: [LogoutRunView] = []
            for name in ["ward-1", "ward-2"] {
                started.append(try await runs.createRun(deviceID: try await database.device(name), appIDs: apps))
            }
            let items = try await database.sql.raw("SELECT id, run_id, version, deadline_at FROM logout_items ORDER BY run_id, position").all()
            #expect(items.count == 6)
            let missed = Date(timeIntervalSince1970: 1_800_000_000)
            let deadline = missed.addingTimeInterval(30)
            var asked: [LogoutItemTransitions.Reissue] = []
            for row in items {
                asked.append(.init(item: try row.decode(column: "id", as: UUID.self), version: try row.decode(column: "version", as: Int.self),
                                   missed: missed, deadline: deadline))
            }
            // One item moved on since the scheduler read it (a callback, another instance).
            let stale = asked[4].item
            try await database.sql.raw("UPDATE logout_items SET version = version + 1 WHERE id = \(bind: stale)").run()

            let now = missed.addingTimeInterval(1)
            let reissued = try await LogoutItemTransitions(sql: database.sql).reissue(asked, at: now)
            #expect(reissued.count == 5)
            #expect(reissued[stale] == nil, "the item that changed is not reissued")
            for row in items {
                let item = try row.decode(column: "id", as: UUID.self)
                guard item != stale else { continue }
                #expect(reissued[item] == (try row.decode(column: "run_id", as: UUID.self)), "each item answered with its run")
            }

            let after = try await database.sql.raw("SELECT id, attempts, version, deadline_at FROM logout_items").all()
            for row in after {
                let item = try row.decode(column: "id", as: UUID.self)
                let attempts = try row.decode(column: "attempts", as: Int.self)
                #expect(attempts == (item == stale ? 1 : 2))
                if item != stale {
                    #expect(try row.decode(column: "deadline_at", as: Date.self) == deadline)
                }
            }
            // The run's timeline: one row per reissue, with the attempt and the deadline it missed.
            let timeline = try await database.sql.raw("SELECT item_id, run_id, attempt, missed_deadline_at, issued_at, deadline_at FROM logout_item_reissues").all()
            #expect(timeline.count == 5)
            for row in timeline {
                let item = try row.decode(column: "item_id", as: UUID.self)
                #expect(reissued[item] == (try row.decode(column: "run_id", as: UUID.self)))
                #expect(try row.decode(column: "attempt", as: Int.self) == 2)
                #expect(try row.decode(column: "missed_deadline_at", as: Date.self) == missed)
                #expect(try row.decode(column: "issued_at", as: Date.self) == now)
                #expect(try row.decode(column: "deadline_at", as: Date.self) == deadline)
            }
            // Nothing to reissue: no statement, nothing answered.
            #expect(try await LogoutItemTransitions(sql: database.sql).reissue([], at: now).isEmpty)
            #expect(started.count == 2)
        }
    }

    /// The scheduler fires a whole batch of silent apps in one pass.
    @Test(arguments: DomainStore.available) func theSchedulerReissuesEveryDueItemOfABatch(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs()
            let app = try await database.targetApp("silent", deadlineSeconds: 20, maxReissues: 1)
            var started: [LogoutRunView] = []
            for index in 0..<12 { started.append(try await runs.createRun(deviceID: try await database.device("ward-\(index)"), appIDs: [app])) }
            let scheduler = DeadlineScheduler(runs: runs)
            database.clock.advance(by: 21)
            #expect(try await scheduler.fireDue(limit: 5) == .init(reissued: 12, timedOut: 0))
            for run in started {
                let view = try await runs.view(run.id)
                #expect(view.items.first?.attempts == 2 && view.items.first?.isPending == true)
            }
            let rows = try await database.sql.raw("SELECT COUNT(*) AS n FROM logout_item_reissues").first()?.decode(column: "n", as: Int.self)
            #expect(rows == 12)
            database.clock.advance(by: 21)
            #expect(try await scheduler.fireDue(limit: 5) == .init(reissued: 0, timedOut: 12))
        }
    }
}
