import FluentKit
import Foundation
import HandoverSchema
@testable import HandoverCore
import HandoverProtocol
import LinkCallbacks
import SQLKit
import Testing

/// The domain's logout runs on SQLite and PostgreSQL, with no server: a run started, answered,
/// reissued and timed out, and a hand-over that fails leaving nothing behind.
@Suite(.timeLimit(.minutes(5))) struct RunLifeCycleTests {
    @Test(arguments: DomainStore.available) func theSchemaIsTheDomainsAndRunsOnce(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            #expect(SchemaHistory.version == SchemaHistory.migrations.count - 1, "version 1 is the schema and its indexes")
            #expect(try await database.migrate() == 0, "a second run applies nothing")
            let tables = try await database.sql.raw("SELECT COUNT(*) AS n FROM logout_runs").first()?.decode(column: "n", as: Int.self)
            #expect(tables == 0)
        }
    }

    @Test(arguments: DomainStore.available) func aRunAnsweredByEveryAppCompletesAndItsDeviceReturnsToService(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs()
            let device = try await database.device()
            let apps = [try await database.targetApp("mail"), try await database.targetApp("chart")]
            let run = try await runs.createRun(deviceID: device, appIDs: apps)
            #expect(run.status == .running && run.items.count == 2)
            #expect(try await Device.find(device, on: database.db)?.status == .handingOver)

            for item in run.items {
                let callback = try Self.callback(item, run: run.id)
                let recorded = await runs.record([(callback, database.clock.now())])
                #expect(try recorded.first?.get() == .recorded(app: item.app, outcome: .success))
                // The same link again: single use.
                let again = await runs.record([(callback, database.clock.now())])
                #expect(try again.first?.get() == .alreadyRecorded(app: item.app, status: .succeeded))
            }
            let done = try await runs.view(run.id)
            #expect(done.status == .completed && done.items.allSatisfy { $0.status == .succeeded })
            #expect(try await Device.find(device, on: database.db)?.status == .inService)
        }
    }

    @Test(arguments: DomainStore.available) func aSilentAppIsReissuedThenTimesOutAndTheRunFails(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs()
            let device = try await database.device()
            let app = try await database.targetApp("silent", deadlineSeconds: 20, maxReissues: 1)
            let run = try await runs.createRun(deviceID: device, appIDs: [app])
            let scheduler = DeadlineScheduler(runs: runs)
            #expect(try await scheduler.fireDue() == .init(), "nothing is due yet")

            database.clock.advance(by: 21)
            #expect(try await scheduler.fireDue() == .init(reissued: 1, timedOut: 0))
            let reissued = try await runs.view(run.id)
            #expect(reissued.items.first?.attempts == 2 && reissued.items.first?.isPending == true)
            #expect(reissued.items.first?.link != run.items.first?.link, "a new link, with a new nonce")

            database.clock.advance(by: 21)
            #expect(try await scheduler.fireDue() == .init(reissued: 0, timedOut: 1))
            let failed = try await runs.view(run.id)
            #expect(failed.status == .failed && failed.items.first?.status == .timedOut)
            #expect(try await Device.find(device, on: database.db)?.status == .outOfService, "a failed hand-over takes the device out of service")
        }
    }

    struct Injected: Error {}

    /// What else ends at a hand-over, then a failure, inside the hand-over's transaction.
    struct EndsThenFails: HandOverSteps {
        func devicesChangeHands(_ handOvers: [HandOverStart], on db: any Database) async throws -> HandOverAftermath {
            let sql = db as! any SQLDatabase
            for start in handOvers {
                try await sql.raw("UPDATE devices SET name = \(bind: "changed by the hand-over") WHERE id = \(bind: start.device)").run()
            }
            throw Injected()
        }
    }

    @Test(arguments: DomainStore.available) func aHandOverThatFailsLeavesNoRunAndNoStep(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs(handOver: EndsThenFails())
            let device = try await database.device("ward-7-phone-2")
            let app = try await database.targetApp("mail")
            await #expect(throws: Injected.self) { _ = try await runs.createRun(deviceID: device, appIDs: [app]) }
            let count = try await database.sql.raw("SELECT COUNT(*) AS n FROM logout_runs").first()?.decode(column: "n", as: Int.self)
            #expect(count == 0, "no run")
            let stored = try await Device.find(device, on: database.db)
            #expect(stored?.status == .inService && stored?.name == "ward-7-phone-2", "neither the device's step nor the steps' change")
        }
    }

    /// The callback an app would report for `item`: its link's success URL, read as the server reads it.
    static func callback(_ item: LogoutRunView.Item, run: UUID) throws -> LogoutRunService.Callback {
        let link = try #require(item.link)
        let universal = try UniversalLinkCallback(parsing: link)
        let url = try #require(CallbackURL(universal.success))
        return LogoutRunService.Callback(run: run, item: item.id, outcome: url.outcome, nonce: url.nonce, reportedBy: .launcher)
    }
}
