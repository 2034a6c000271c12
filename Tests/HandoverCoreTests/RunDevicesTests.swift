import FluentKit
import Foundation
@testable import HandoverCore
import SQLKit
import Testing

/// ``RunDevices``: the device of each run, remembered so that authorizing a callback reads
/// nothing.
@Suite(.timeLimit(.minutes(5))) struct RunDevicesTests {
    @Test func aRememberedRunAnswersItsDevice() {
        let memory = RunDevices(capacity: 8)
        let run = UUID(), device = UUID()
        #expect(memory.device(of: run) == nil)
        memory.remember(run: run, device: device)
        #expect(memory.device(of: run) == device)
    }

    /// Bounded: it never holds more than its capacity, forgets the runs least recently used
    /// first, and keeps a run that is still being read.
    @Test func itHoldsAtMostItsCapacityAndKeepsTheRunsStillRead() {
        let memory = RunDevices(capacity: 8)
        let device = UUID()
        let busy = UUID()
        memory.remember(run: busy, device: device)
        var runs: [UUID] = []
        for _ in 0..<100 {
            let run = UUID()
            runs.append(run)
            memory.remember(run: run, device: device)
            #expect(memory.device(of: busy) == device, "a run read all along is kept")
            #expect(memory.count <= 8)
        }
        #expect(memory.device(of: runs[0]) == nil, "the oldest run not read again is forgotten")
        #expect(memory.device(of: runs[99]) == device)
    }

    /// A run started through the service is remembered at COMMIT: the device of its run is then
    /// answered without reading the database (here the row is changed behind the service's back,
    /// which nothing real does: a run never changes device).
    @Test(arguments: DomainStore.available) func aRunStartedHereIsAnsweredWithoutARead(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let runs = database.runs(runDevices: RunDevices())
            let device = try await database.device("ward-7-phone-1"), other = try await database.device("ward-7-phone-2")
            let app = try await database.targetApp("mail")
            let run = try await runs.createRun(deviceID: device, appIDs: [app])
            try await database.sql.raw("UPDATE logout_runs SET device_id = \(bind: other) WHERE id = \(bind: run.id)").run()
            #expect(try await runs.deviceOfRun(run.id) == device)
        }
    }

    /// A run started elsewhere (another instance, or before a restart) is read once, then
    /// remembered; an unknown run is read each time and never remembered.
    @Test(arguments: DomainStore.available) func aRunStartedElsewhereIsReadOnceThenRemembered(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let elsewhere = database.runs()
            let here = database.runs(runDevices: RunDevices())
            let device = try await database.device("ward-7-phone-1"), other = try await database.device("ward-7-phone-2")
            let app = try await database.targetApp("mail")
            let run = try await elsewhere.createRun(deviceID: device, appIDs: [app])
            #expect(here.runDevices?.device(of: run.id) == nil)
            #expect(try await here.deviceOfRun(run.id) == device)
            try await database.sql.raw("UPDATE logout_runs SET device_id = \(bind: other) WHERE id = \(bind: run.id)").run()
            #expect(try await here.deviceOfRun(run.id) == device)
            let unknown = UUID()
            #expect(try await here.deviceOfRun(unknown) == nil)
            #expect(here.runDevices?.device(of: unknown) == nil)
        }
    }
}
