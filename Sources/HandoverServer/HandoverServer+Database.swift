import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import HandoverCore
import SQLKit
import Vapor

/// Set-up of the server's database: SQLite in the data directory (one writer, readers beside it,
/// the checkpoint's connection) or PostgreSQL.
extension HandoverServer {
    /// Puts the SQLite database in WAL mode (persistent in the file), retrying briefly while
    /// another connection holds it; throws when it cannot.
    static func enableWriteAheadLog(_ sql: any SQLDatabase) async throws {
        for attempt in 1...20 {
            let mode = try await sql.raw("PRAGMA journal_mode=WAL").first()?.decode(column: "journal_mode", as: String.self)
            if mode?.lowercased() == "wal" { return }
            if attempt < 20 { try await Task.sleep(for: .milliseconds(50)) }
        }
        throw ConfigurationError(setting: "--data-dir", problem: "the SQLite database could not be put in WAL mode (another process has it open?)",
                                 accepted: "a data directory no other program is using")
    }

    /// Chooses SQLite in the data directory, or PostgreSQL when a database URL is given.
    /// Returns whether PostgreSQL is used.
    ///
    /// - Parameter existingOnly: the `admin` commands: an SQLite data directory must already hold
    ///   a Handover database (``DataDirectory/requireDatabase(_:)``); nothing is created.
    static func configureDatabase(_ application: Application, _ configuration: ServerConfiguration, existingOnly: Bool = false) throws -> Bool {
        SchemaMigrations.register(on: application)
        if let url = configuration.databaseURL {
            let accepted = "postgres://user:password@host:5432/database, or nothing for SQLite"
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw ConfigurationError(setting: "--database", problem: "'\(StartupFailure.redacted(url))' is not a PostgreSQL URL", accepted: accepted)
            }
            guard let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty else {
                throw ConfigurationError(setting: "--database", problem: "'\(StartupFailure.redacted(url))' names no database host", accepted: accepted)
            }
            do {
                application.databases.use(try .postgres(url: url, maxConnectionsPerEventLoop: 4, pruneInterval: .seconds(60)), as: .psql)
            } catch {
                throw ConfigurationError(setting: "--database", problem: "'\(StartupFailure.redacted(url))' cannot be read as a PostgreSQL URL", accepted: accepted)
            }
            return true
        }
        if existingOnly {
            try DataDirectory.requireDatabase(configuration.dataDirectory)
        } else {
            try DataDirectory.prepare(configuration.dataDirectory)
        }
        let file = configuration.dataDirectory.appendingPathComponent(DataDirectory.databaseFileName).path
        // One writer for the whole server, readers beside it (``DatabaseID/sqliteReads``), and the
        // checkpoint's connection (``DatabaseID/sqliteCheckpoints``).
        application.databases.use(.singleConnection(.sqlite(.file(file))), as: .sqlite)
        application.databases.use(.sqlite(.file(file)), as: .sqliteReads, isDefault: false)
        application.databases.use(.singleConnection(.sqlite(.file(file))), as: .sqliteCheckpoints, isDefault: false)
        return false
    }
}
