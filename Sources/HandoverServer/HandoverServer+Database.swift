import Foundation
import HandoverConfiguration
import HandoverCore
import Vapor

/// Set-up of the server's database: SQLite in the data directory (one writer, readers beside it,
/// the checkpoint's connection) or PostgreSQL, opened by the core (``HandoverCore/DatabaseConnections``).
extension HandoverServer {
    /// Opens SQLite in the data directory, or PostgreSQL when a database URL is given, on the
    /// application's threads. Nothing connects until the first query.
    ///
    /// - Parameter existingOnly: the `admin` commands: an SQLite data directory must already hold
    ///   a Handover database (``DataDirectory/requireDatabase(_:)``); nothing is created.
    static func openDatabase(_ application: Application, _ configuration: ServerConfiguration,
                             existingOnly: Bool = false) throws -> DatabaseConnections {
        if let url = configuration.databaseURL {
            let accepted = "postgres://user:password@host:5432/database, or nothing for SQLite"
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw ConfigurationError(setting: "--database", problem: "'\(StartupFailure.redacted(url))' is not a PostgreSQL URL", accepted: accepted)
            }
            guard let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty else {
                throw ConfigurationError(setting: "--database", problem: "'\(StartupFailure.redacted(url))' names no database host", accepted: accepted)
            }
            do {
                return try DatabaseConnections(.postgres(url: url), threadPool: application.threadPool, group: application.eventLoopGroup,
                                               logger: application.logger, preparedStatements: configuration.preparedStatements)
            } catch {
                throw ConfigurationError(setting: "--database", problem: "'\(StartupFailure.redacted(url))' cannot be read as a PostgreSQL URL", accepted: accepted)
            }
        }
        if existingOnly {
            try DataDirectory.requireDatabase(configuration.dataDirectory)
        } else {
            try DataDirectory.prepare(configuration.dataDirectory)
        }
        let file = configuration.dataDirectory.appendingPathComponent(DataDirectory.databaseFileName).path
        return try DatabaseConnections(.sqlite(file: file), threadPool: application.threadPool, group: application.eventLoopGroup,
                                       logger: application.logger)
    }
}
