import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer

/// Where the server keeps its data: shared by `serve` and `admin`.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"),
            help: ArgumentHelp("Folder for the embedded SQLite database. Env: HANDOVER_DATA_DIR. Default: .handover", valueName: "dir"))
    var dataDirectory: String?

    @Option(name: .customLong("database"),
            help: ArgumentHelp("PostgreSQL URL, postgres://user:pass@host:5432/db, instead of SQLite. Env: HANDOVER_DATABASE_URL.",
                               valueName: "url"))
    var databaseURL: String?

    /// The environment's configuration (`environment`: the process's, or it with a configuration
    /// file's settings under it) with these flags on top.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        // A ConfigurationError prints as one line (`Error: setting: problem. Accepted: …`).
        var configuration = try ServerConfiguration.fromEnvironment(environment)
        if let dataDirectory { configuration.dataDirectory = URL(fileURLWithPath: dataDirectory) }
        if let databaseURL {
            guard databaseURL.hasPrefix("postgres://") || databaseURL.hasPrefix("postgresql://") else {
                throw ConfigurationError(setting: "--database", problem: "'\(databaseURL)' is not a PostgreSQL URL",
                                         accepted: "postgres://user:password@host:5432/database, or nothing for SQLite")
            }
            configuration.databaseURL = databaseURL
        }
        return configuration
    }
}
