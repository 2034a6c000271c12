import Foundation
@testable import HandoverCore
import HandoverProtocol
import PropertyBased
import SQLKit
import Testing

/// A launcher opens a run's apps in turn (ULC: each app hands the phone back before the next is
/// opened), so an app's first link cannot be answered before the apps ahead of it were. Its
/// deadline counts from the run's start or, when later, from the last answer of an app before it
/// in the run. Before, every first deadline counted from the run's start: when the server took
/// longer to record the first answers, the last apps' deadlines passed before they were opened,
/// their links were reissued, and an app out of resends timed out and failed its run although it
/// had answered.
@Suite(.timeLimit(.minutes(5))) struct TurnDeadlineTests {
    @Test(arguments: DomainStore.available) func aFirstDeadlineCountsFromTheAnswerOfTheAppBeforeIt(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs()
            // No resends: a deadline that fires too early fails the run.
            let apps = [try await database.targetApp("mail", maxReissues: 0), try await database.targetApp("chart", maxReissues: 0),
                        try await database.targetApp("pager", maxReissues: 0)]
            let run = try await runs.createRun(deviceID: try await database.device(), appIDs: apps)
            let start = database.clock.now()
            let scheduler = DeadlineScheduler(runs: runs)

            // The mail app answers 15 s in; the run's 20 s deadline passes 6 s later.
            database.clock.advance(by: 15)
            _ = await runs.record([(try RunLifeCycleTests.callback(run.items[0], run: run.id), database.clock.now())])
            database.clock.advance(by: 6)
            #expect(try await scheduler.fireDue() == .init(), "the chart's and the pager's turns began at the mail's answer")
            var view = try await runs.view(run.id)
            #expect(view.status == .running)
            #expect(view.items[1].isPending && view.items[1].attempts == 1 && view.items[2].isPending && view.items[2].attempts == 1)
            #expect(view.items[1].deadlineAt == start.addingTimeInterval(35), "the view shows the deadline from the chart's turn")
            let stored = try await LogoutRunRows(sql: database.sql).items(run: run.id)
            #expect(stored[1].view.deadlineAt == start.addingTimeInterval(20), "the links' own deadlines are kept")

            // The chart answers at 30 s: the pager's turn begins again.
            database.clock.advance(by: 9)
            _ = await runs.record([(try RunLifeCycleTests.callback(run.items[1], run: run.id), database.clock.now())])
            database.clock.advance(by: 6)
            #expect(try await scheduler.fireDue() == .init(), "36 s: the pager's turn began at 30 s")

            // The pager stays silent: 20 s after its turn began, it times out, and the run fails.
            database.clock.advance(by: 13)
            #expect(try await scheduler.fireDue() == .init(), "49 s: not yet")
            database.clock.advance(by: 2)
            #expect(try await scheduler.fireDue() == .init(timedOut: 1))
            view = try await runs.view(run.id)
            #expect(view.status == .failed && view.items[2].status == .timedOut)
            #expect(view.items[2].finishedAt == start.addingTimeInterval(51))
            #expect(view.items[0].status == .succeeded && view.items[1].status == .succeeded)
        }
    }

    /// An app that stalls keeps its own deadline: neither the answers of the apps after it (which
    /// the launcher opens while it waits) nor an answer to another app's resend (the launcher
    /// opened this app before that resend) move it, and its link is reissued on time.
    @Test(arguments: DomainStore.available) func aStalledAppIsNotKeptWaitingByLaterAnswers(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs()
            let apps = [try await database.targetApp("mail"), try await database.targetApp("chart"), try await database.targetApp("scribe"),
                        try await database.targetApp("pager")]
            let run = try await runs.createRun(deviceID: try await database.device(), appIDs: apps)
            let start = database.clock.now()
            let scheduler = DeadlineScheduler(runs: runs)
            func answer(_ item: LogoutRunView.Item) async throws {
                let recorded = await runs.record([(try RunLifeCycleTests.callback(item, run: run.id), database.clock.now())])
                #expect(try recorded.first?.get() == .recorded(app: item.app, outcome: .success))
            }

            // The chart and the pager stall; the mail answers at 5 s, the scribe at 8 s.
            database.clock.advance(by: 5)
            try await answer(run.items[0])
            database.clock.advance(by: 3)
            try await answer(run.items[2])
            database.clock.advance(by: 13)
            #expect(try await scheduler.fireDue() == .init(), "21 s: the chart's turn began at 5 s, the pager's at 8 s")
            database.clock.advance(by: 4)
            #expect(try await scheduler.fireDue() == .init(reissued: 1), "25 s: the scribe's answer at 8 s did not move the chart")
            var view = try await runs.view(run.id)
            #expect(view.items[1].attempts == 2 && view.items[1].isPending)
            #expect(view.items[1].deadlineAt == start.addingTimeInterval(45), "a resend counts from when it was issued")

            // The chart answers its resend at 26 s: the pager's first link was opened long before.
            database.clock.advance(by: 1)
            try await answer(view.items[1])
            database.clock.advance(by: 2)
            #expect(try await scheduler.fireDue() == .init(reissued: 1), "28 s: the pager's turn began at 8 s")
            view = try await runs.view(run.id)
            #expect(view.items[3].attempts == 2)
            // The run's timeline says which deadline each missed: its turn's, not the run's.
            let missed = try await database.sql.raw("SELECT missed_deadline_at FROM logout_item_reissues ORDER BY missed_deadline_at").all()
            #expect(try missed.map { try $0.decode(column: "missed_deadline_at", as: Date.self) }
                    == [start.addingTimeInterval(25), start.addingTimeInterval(28)])
        }
    }

    /// The rule's two forms (``TurnDeadline/deadline(of:in:)`` in Swift for the run's view,
    /// ``TurnDeadline/sql`` for the scheduler) give every pending item of any run the same
    /// deadline: runs of 1-7 items in any state, attempt, issue, length, answer and method.
    @Test(arguments: DomainStore.available) func theRulesSwiftAndSQLFormsAgree(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            var apps: [UUID] = []
            for index in 0..<7 { apps.append(try await database.targetApp("app\(index)")) }
            let device = try await database.device()
            let rows = LogoutRunRows(sql: database.sql)
            let base = database.clock.now()
            let methods: [LogoutMethod?] = [nil] + LogoutMethod.allCases
            let reporters: [CallbackReporter?] = [nil] + CallbackReporter.allCases
            let states: [LogoutItemState] = [.pending, .succeeded, .failed, .timedOut]
            // Each number is one item: its fields are its digits in mixed bases.
            await propertyCheck(count: 60, input: Gen.int(in: 0...Int(Int32.max)).array(of: 1...7)) { numbers in
                let runID = UUID()
                let items = numbers.enumerated().map { position, _ in
                    LogoutRunView.Item(id: UUID(), appID: apps[position], app: "app\(position)", position: position, status: .pending,
                                       attempts: 1, issuedAt: base, deadlineAt: base)
                }
                try await rows.insert([.init(id: runID, deviceID: device, createdAt: base, items: items)])
                for (item, number) in zip(items, numbers) {
                    var rest = number
                    func digit(_ base: Int) -> Int { defer { rest /= base }; return rest % base }
                    let state = states[digit(states.count)], attempts = 1 + digit(3)
                    let issued = base.addingTimeInterval(TimeInterval(digit(40))), length = TimeInterval(1 + digit(30))
                    let finished = state == .pending ? nil : base.addingTimeInterval(TimeInterval(digit(90)))
                    let reporter = state == .pending || state == .timedOut ? nil : reporters[digit(reporters.count)]
                    let method = methods[digit(methods.count)]
                    try await database.sql.raw("""
                        UPDATE logout_items SET status = \(bind: state.rawValue), attempts = \(bind: attempts), issued_at = \(bind: issued),
                        deadline_at = \(bind: issued.addingTimeInterval(length)), finished_at = \(bind: finished),
                        reported_by = \(bind: reporter?.rawValue), logout_method = \(bind: method?.rawValue) WHERE id = \(bind: item.id)
                        """).run()
                }
                let stored = try await rows.items(run: runID)
                let fromSQL = try await database.sql.raw("""
                    SELECT id, \(TurnDeadline.sql) AS due_at FROM logout_items WHERE run_id = \(bind: runID) AND status = \(literal: LogoutItemState.pending.rawValue)
                    """).all().map { (try $0.decode(column: "id", as: UUID.self), try $0.decode(column: "due_at", as: Date.self)) }
                for (id, deadline) in fromSQL {
                    let item = try #require(stored.first { $0.view.id == id })
                    let swift = TurnDeadline.deadline(of: item, in: stored)
                    #expect(abs(swift.timeIntervalSince(deadline)) < 0.001, "\(item.view.app): SQL \(deadline), Swift \(swift) in \(stored)")
                }
            }
        }
    }

    /// Past the server's capacity thousands of items wait for their turn with their link's own
    /// deadline passed, and the scheduler asks ten times a second. Its statement must read them
    /// in that deadline's order (the `logout_items_pending_due` index) and stop at its limit;
    /// ordered by the turn's deadline, it computed every one's turn and sorted them all in every
    /// pass (a temporary B-tree in SQLite's plan), and a 10,000-phone storm's callbacks went from
    /// 130-150 ms to 0.8-1.6 s.
    @Test func theDueStatementStopsAtItsLimitInTheIndexsOrder() async throws {
        try await DomainDatabase.with(.sqlite) { database in
            let plan = try await database.sql.raw("EXPLAIN QUERY PLAN \(LogoutRunRows.dueStatement(at: Date(), limit: 100))").all()
                .map { try $0.decode(column: "detail", as: String.self) }
            #expect(plan.first?.contains("USING INDEX logout_items_pending_due") == true, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("MATERIALIZE") }, "\(plan)")
        }
    }
}
