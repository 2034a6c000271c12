import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Vapor

/// The shift change's writes, many to a transaction (group commit): callbacks, run starts, and
/// the launchers' check-outs.
struct RunCommits: Sendable {
    /// The logout runs on a database, as the server configured them.
    let runs: LogoutRunService.OnDatabase
    let databases: ServerDatabases
    let clock: ServerClock
    private let callbacks: GroupCommit<(callback: LogoutRunService.Callback, at: Date), LogoutRunService.Recording>
    private let starts: GroupCommit<LogoutRunService.RunStart, LogoutRunView>
    private let checkOuts: GroupCommit<CustodyLedger.CheckOutRequest, Custody>

    /// How long a request waits for its batch's write before it is answered 503 with `Retry-After`
    /// (``DomainError/databaseUnavailable``): far above a slow batch's seconds, well below a
    /// launcher's patience. A run start and a callback sent again are recorded once.
    static let writeDeadline = Duration.seconds(20)

    init(runs: @escaping LogoutRunService.OnDatabase, databases: ServerDatabases, clock: ServerClock) {
        self.runs = runs
        self.databases = databases
        self.clock = clock
        let deadline = (limit: Self.writeDeadline, sleep: { @Sendable (duration: Duration) in try await clock.sleep(for: duration) })
        callbacks = GroupCommit(deadline: deadline)
        starts = GroupCommit(maxBatch: 64, deadline: deadline)
        checkOuts = GroupCommit(maxBatch: 64, deadline: deadline)
    }

    /// Records a callback through the group-commit writer; returns once it is committed. Until
    /// then its item's deadline does not fire (``UncommittedCallbacks``).
    func record(_ callback: LogoutRunService.Callback, on application: Application) async throws -> LogoutRunService.Recording {
        let runs = runs(databases.primary)
        runs.uncommittedCallbacks?.received(callback.item)
        defer { runs.uncommittedCallbacks?.settled(callback.item) }
        return try await callbacks.submit((callback, clock.now()), writers: runs.groupCommitWriters) { await runs.record($0) }
    }

    /// Starts a run through the group-commit writer; returns once it is committed.
    func start(_ start: LogoutRunService.RunStart, on application: Application) async throws -> LogoutRunView {
        let runs = runs(databases.primary)
        let reads = databases.reads
        return try await starts.submit(start, writers: runs.groupCommitWriters) { await runs.createRuns($0, readingAppsOn: reads) }
    }

    /// Checks a device out through the group-commit writer; returns once it is committed.
    func checkOut(_ request: CustodyLedger.CheckOutRequest, ledger: CustodyLedger, on application: Application) async throws -> Custody {
        let database = databases.primary
        let now = clock.now()
        return try await checkOuts.submit(request, writers: runs(database).groupCommitWriters) { await ledger.checkOut($0, on: database, now: now) }
    }
}
