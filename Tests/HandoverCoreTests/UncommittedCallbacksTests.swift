import Foundation
@testable import HandoverCore
import HandoverProtocol
import Testing

/// A callback the server has received is an answer, even while it waits in the group commit
/// behind earlier batches: its item's deadline must not fire. Before, such an item was reissued
/// past the server's capacity, and an item out of resends timed out and failed its run although
/// its app had answered.
@Suite(.timeLimit(.minutes(5))) struct UncommittedCallbacksTests {
    @Test(arguments: DomainStore.available) func aDeadlineWaitsForTheCallbackTheServerHolds(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let held = UncommittedCallbacks()
            let runs = database.runs(uncommittedCallbacks: held)
            // One app with a resend left, one without: past its deadline the first is reissued,
            // the second times out and fails the run.
            let mail = try await database.targetApp("mail", deadlineSeconds: 20, maxReissues: 1)
            let chart = try await database.targetApp("chart", deadlineSeconds: 20, maxReissues: 0)
            let run = try await runs.createRun(deviceID: try await database.device(), appIDs: [mail, chart])
            let (mailItem, chartItem) = (run.items[0].id, run.items[1].id)
            held.received(mailItem)
            held.received(chartItem)
            held.received(chartItem)  // answered twice (success, then a replay): both on their way
            let scheduler = DeadlineScheduler(runs: runs)
            database.clock.advance(by: 21)

            #expect(try await scheduler.fireDue() == .init(reissued: 0, timedOut: 0), "both answers are held: nothing fires")
            var view = try await runs.view(run.id)
            #expect(view.items.allSatisfy { $0.isPending && $0.attempts == 1 }, "\(view.items)")
            #expect(view.status == .running)

            // The mail's callback failed to commit: its deadline fires on the next pass.
            held.settled(mailItem)
            held.settled(chartItem)
            #expect(try await scheduler.fireDue() == .init(reissued: 1, timedOut: 0), "the chart's second callback is still held")
            view = try await runs.view(run.id)
            #expect(view.items[0].attempts == 2 && view.items[0].isPending)
            #expect(view.items[1].attempts == 1 && view.items[1].isPending)

            held.settled(chartItem)
            #expect(try await scheduler.fireDue() == .init(reissued: 0, timedOut: 1))
            view = try await runs.view(run.id)
            #expect(view.items[1].status == .timedOut)
        }
    }

    /// Two callbacks of one item (an answer and its replay) hold it until both settled.
    @Test func anItemIsHeldUntilEachOfItsCallbacksSettled() {
        let held = UncommittedCallbacks()
        let (one, two) = (UUID(), UUID())
        #expect(held.holding([one, two]).isEmpty)
        held.received(one)
        held.received(one)
        held.settled(one)
        #expect(held.holding([one, two]) == [one])
        held.settled(one)
        held.settled(two)  // never received: nothing to settle
        #expect(held.holding([one, two]).isEmpty)
    }
}
