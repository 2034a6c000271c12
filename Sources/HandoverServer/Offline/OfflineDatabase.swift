import Foundation
import HandoverConfiguration
import HandoverCore
import HandoverSchema
import Logging
import Vapor

/// The `admin` commands' access to a server's database from the machine it runs on, without
/// serving HTTP: the database must exist already (nothing is created in an empty folder).
extension HandoverServer {
    /// Opens the configured database, runs migrations, runs `body` on it, and closes it.
    /// With `migrates` false the schema is left as it is (a check that must not write).
    static func withOfflineDatabase<T>(_ configuration: ServerConfiguration, logger: Logger, migrates: Bool = true,
                                       _ body: (ServerDatabases) async throws -> T) async throws -> T {
        let application = try await Application.make(Environment(name: "production", arguments: ["handover"]))
        application.logger = logger
        var opened: DatabaseConnections?
        do {
            let connections = try openDatabase(application, configuration, existingOnly: true)
            opened = connections
            if migrates { try await connections.migrate() }
            let result = try await body(connections.access)
            await connections.shutdown()
            try await application.asyncShutdown()
            return result
        } catch {
            await opened?.shutdown()
            try? await application.asyncShutdown()
            throw error
        }
    }

    /// The sites the configured database's devices are at (key → name as written), for `config
    /// check`'s warning about a lending period no device can fall under; nil when there is no
    /// database yet. Reads only: no migration runs.
    public static func fleetSites(_ configuration: ServerConfiguration, logger: Logger = Logger(label: "handover")) async throws -> [String: String]? {
        if configuration.databaseURL == nil,
           !FileManager.default.fileExists(atPath: configuration.dataDirectory.appendingPathComponent(DataDirectory.databaseFileName).path) {
            return nil
        }
        return try await withOfflineDatabase(configuration, logger: logger, migrates: false) { try await FleetSites.all(on: $0.primary) }
    }

    /// When a key made at `now` that lives `text` (`90d`, `12h`) stops working: the rule the
    /// dashboard's Keys form reads too (``KeyLifetime``). Throws a sentence naming `option`.
    public static func keyExpiry(_ text: String, option: String, now: Date = Date()) throws -> Date {
        do {
            return now.addingTimeInterval(try KeyLifetime(text, field: option).seconds)
        } catch let error as DomainError {
            throw KeyLifetimeError(description: error.reason)
        }
    }

    /// A lifetime that is not one, as its sentence.
    public struct KeyLifetimeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates a key in the configured database (`handover admin create-key`); the history
    /// records who made it.
    public static func createKey(_ configuration: ServerConfiguration, name: String, scope: APIKeyScope, expiresAt: Date? = nil,
                                 site: SiteName? = nil, logger: Logger = Logger(label: "handover")) async throws -> String {
        try await withOfflineDatabase(configuration, logger: logger) { databases in
            let db = databases.primary
            let key = try await APIKeyIssuer.create(name: name, scope: scope, expiresAt: expiresAt, site: site, on: db)
            try await AdminEvent(at: Date(), kind: .keyChanged, who: "handover admin create-key on the server's machine",
                                 detail: "made \"\(name)\" (\(scope.rawValue) key \(key.prefix(12))…)" + (site.map { " for \($0) only" } ?? "")
                                    + (expiresAt.map { ", expiring \($0.formatted(.iso8601))" } ?? "")).record(on: db)
            return key
        }
    }

    /// Who held which device with check-outs from `from` to `to` (`handover admin custody-report`):
    /// CSV, or JSON lines of the API's records.
    public static func custodyReport(_ configuration: ServerConfiguration, from: Date?, to: Date?, csv: Bool,
                                     logger: Logger = Logger(label: "handover")) async throws -> String {
        try await withOfflineDatabase(configuration, logger: logger) { databases in
            let rows = try await CustodyReport(from: from, to: to).run(on: databases.primary, pageSize: 1_000_000).rows
            if csv { return CustodyReport.csv(rows) }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try rows.map { String(decoding: try encoder.encode(CustodyRecordView($0)), as: UTF8.self) }.joined(separator: "\n")
                + (rows.isEmpty ? "" : "\n")
        }
    }
}
