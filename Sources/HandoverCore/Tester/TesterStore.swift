import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The conformance tester's statements (``ConformanceTester`` reads and writes its tests through
/// them): a test is one `tester_runs` row, its rounds JSON, changed under a version check.
package struct TesterStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) {
        self.database = database
    }

    /// Inserts a new test.
    package func create(_ run: TesterRun) async throws {
        try await run.create(on: database)
    }

    /// Reads the test `id`, if there is one.
    package func run(_ id: UUID) async throws -> TesterRun? {
        try await TesterRun.find(id, on: database)
    }

    /// Reads the latest `limit` tests, newest first.
    package func recent(limit: Int) async throws -> [TesterRun] {
        try await TesterRun.query(on: database).sort(\.$createdAt, .descending).limit(limit).all()
    }

    /// Whether no test is running, by one small statement; false where the database does not
    /// speak SQL (the caller then reads the running tests).
    ///
    /// Nearly every pass (ten a second) finds no test running: one small statement says so,
    /// where building and serializing the model's query cost about 2 M instructions a pass in a
    /// debug build, some 40 % of an idle server's work.
    package func noneRunning() async throws -> Bool {
        if let sql = database as? any SQLDatabase,
           try await sql.raw("SELECT 1 AS running FROM \(ident: TesterRun.schema) WHERE status = \(bind: TesterVerdictStatus.running.rawValue) LIMIT 1").first() == nil {
            return true
        }
        return false
    }

    /// Reads the tests still running.
    package func running() async throws -> [TesterRun] {
        try await TesterRun.query(on: database).filter(\.$status == .running).all()
    }

    /// Writes `rounds` and `status` to the test `id` if it is still at `version`, moving it to
    /// the next version (Fluent does not report affected rows portably: read the test back to see
    /// whose write won).
    package func write(_ id: UUID, version: Int, rounds: String, status: TesterVerdictStatus) async throws {
        try await TesterRun.query(on: database)
            .filter(\.$id == id).filter(\.$version == version)
            .set(\.$rounds, to: rounds).set(\.$status, to: status).set(\.$version, to: version + 1)
            .update()
    }
}
