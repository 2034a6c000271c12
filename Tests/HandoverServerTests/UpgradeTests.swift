import Foundation
import HandoverSchema
import TestPeers
import HandoverCore
import HandoverServer
import SQLKit
import Testing

/// Issue 41: a database made by an earlier release opens in this one with every record intact.
///
/// Each folder of Tests/Fixtures/upgrade was made by that release's own binary with
/// scripts/make-upgrade-fixture.py: a SQLite data directory, a PostgreSQL dump, and
/// `expected.json` (the keys it used, and every table's rows as text). This build opens each,
/// migrates it, and must find every row of every table the release wrote, column for column
/// (migrations may add rows, never change or drop one), and serve them: the release's admin key lists its devices, a device key reads its run.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct UpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade")

    /// The releases that left fixtures, oldest first.
    static var releases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).sorted()
    }

    struct Expected: Decodable {
        struct Database: Decodable {
            struct Table: Decodable {
                var columns: [String]
                var rows: [String]
            }
            struct Device: Decodable { var id: String; var name: String; var key: String }
            struct Run: Decodable { var id: String; var status: String }
            var adminKey: String
            var devices: [Device]
            var runs: [Run]
            var tables: [String: Table]
        }
        var version: String
        /// When the fixture was made (seconds since 1970).
        var madeAt: Double
        var sqlite: Database
        var postgres: Database?
    }

    static func expected(_ release: String) throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: fixtures.appendingPathComponent("\(release)/expected.json")))
    }

    @Test func thereIsAFixtureOfThePreviousRelease() {
        #expect(Self.releases.contains("0.9.0"), "\(Self.releases)")
    }

    @Test(arguments: releases)
    func aSQLiteDatabaseOfAnEarlierReleaseOpensWithEveryRecord(release: String) async throws {
        let expected = try Self.expected(release).sqlite
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-upgrade-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("\(release)/sqlite"), to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The clock a minute after the fixture was made: what it wrote with a lifetime is alive.
        let clock = ManualServerClock(Date(timeIntervalSince1970: try Self.expected(release).madeAt + 60))
        try await TestServer.with(.sqlite, clock: clock, configure: { $0.dataDirectory = directory }) { test in
            let sql = try #require(test.server.databases.primary as? any SQLDatabase)
            for (table, rows) in expected.tables {
                // As scripts/make-upgrade-fixture.py writes them (reals as whole microseconds: the text of a real differs between SQLite versions).
                let text = rows.columns.map { "CASE typeof(\"\($0)\") WHEN 'real' THEN CAST(\"\($0)\" * 1000000 AS INTEGER) ELSE quote(\"\($0)\") END" }
                    .joined(separator: " || '|' || ")
                let found = try await sql.raw("SELECT \(unsafeRaw: text) AS r FROM \(ident: table)").all()
                    .map { try $0.decode(column: "r", as: String.self) }.sorted()
                // Every row the release wrote is there, unchanged (this release may add rows: its migrations').
                let missing = Set(rows.rows).subtracting(found)
                #expect(missing.isEmpty, "\(release): table \(table) lost or changed \(missing.count) rows: \(missing.sorted().prefix(3)); it holds \(Set(found).subtracting(rows.rows).sorted().prefix(3))")
            }
            try await Self.serves(expected, test, release: release)
        }
    }

    @Test(arguments: releases)
    func aPostgreSQLDumpOfAnEarlierReleaseOpensWithEveryRecord(release: String) async throws {
        guard TestDatabase.available.contains(.postgres) else {
            print("skipping the PostgreSQL upgrade of \(release): set HANDOVER_TEST_POSTGRES_URL")
            return
        }
        guard let expected = try Self.expected(release).postgres else { return }
        let url = try await PostgresTestDatabase.fresh()
        let restore = try await ChildProcess.run(["psql", url, "-qX", "-v", "ON_ERROR_STOP=1", "-f",
                                                  Self.fixtures.appendingPathComponent("\(release)/postgres.sql").path])
        #expect(restore.status == 0, "psql restored the dump: \(restore.errorText)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The instances of one database share its at-rest key.
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("\(release)/postgres-token-encryption.key"),
                                         to: directory.appendingPathComponent("token-encryption.key"))
        let clock = ManualServerClock(Date(timeIntervalSince1970: try Self.expected(release).madeAt + 60))
        try await TestServer.with(.sqlite, clock: clock, configure: { configuration in
            configuration.dataDirectory = directory
            configuration.databaseURL = url
        }) { test in
            for (table, rows) in expected.tables {
                let columns = rows.columns.map { "\"\($0)\"" }.joined(separator: ", ")
                // Times as text in one zone, the one the fixture was written in.
                let found = try await (test.server.databases.primary).transaction { db in
                    let sql = try #require(db as? any SQLDatabase)
                    try await sql.raw("SET LOCAL TIME ZONE 'UTC'").run()
                    return try await sql.raw("SELECT row(\(unsafeRaw: columns))::text AS r FROM \(ident: table)").all()
                        .map { try $0.decode(column: "r", as: String.self) }.sorted()
                }
                // Every row the release wrote is there, unchanged (this release may add rows: its migrations').
                let missing = Set(rows.rows).subtracting(found)
                #expect(missing.isEmpty, "\(release): table \(table) lost or changed \(missing.count) rows: \(missing.sorted().prefix(3)); it holds \(Set(found).subtracting(rows.rows).sorted().prefix(3))")
            }
            try await Self.serves(expected, test, release: release)
        }
    }

    /// The release's keys still open what they opened: the admin key lists the devices, each run
    /// reads as it ended, a device key reads its own run.
    static func serves(_ expected: Expected.Database, _ test: TestServer, release: String) async throws {
        let devices = try await test.request(.GET, "/api/v1/devices", key: expected.adminKey)
        #expect(devices.status == 200, "\(release): the admin key of the release")
        for device in expected.devices { #expect(devices.text.contains(device.name), "\(release): \(device.name)") }
        for (index, run) in expected.runs.enumerated() {
            let read = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: expected.devices[index].key)
            #expect(read.status == 200, "\(release): the device key reads its run")
            #expect(read.json["status"] as? String == run.status, "\(release): run \(run.id)")
        }
    }
}
