import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer

/// `handover admin backup`: an online copy of the SQLite database while the server runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database, consistently, while the server runs.",
        discussion: """
            SQLite's VACUUM INTO: one read transaction on the live database, written to a new \
            file that is whole or absent; it holds everything committed when it began. The \
            server goes on serving. token-encryption.key is not copied: keep it apart from the \
            backups, once. For PostgreSQL (--database) use pg_dump.

            Examples:
              handover admin backup --to /backups/handover-$(date +%F).sqlite
              handover admin backup --data-dir /var/lib/handover --to /backups/handover.sqlite
            """)

    @Option(help: ArgumentHelp("The backup file to write (it must not exist).", valueName: "file"))
    var to: String

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let configuration = try storage.sqliteConfiguration(orElse: "a PostgreSQL database is backed up with pg_dump")
        let summary = try await SQLiteBackup.backUp(dataDirectory: configuration.dataDirectory, to: URL(fileURLWithPath: to))
        print("Backed up \(configuration.dataDirectory.appendingPathComponent("handover.sqlite").path) to \(summary.file.path): "
              + "\(summary.bytes.formatted()) bytes, schema version \(summary.schemaVersion), integrity ok.")
    }
}

/// `handover admin restore FILE`: puts a backup in place of the database, the server stopped.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup in place of the SQLite database (stop the server first).",
        discussion: """
            Refused while a server runs on the data directory. The backup is checked first \
            (integrity, and a schema this release knows); the current database is kept aside as \
            handover.sqlite.before-restore-<time>, never deleted. Start the server with the \
            token-encryption.key (or HANDOVER_TOKEN_ENCRYPTION_KEY) of the server that made the \
            backup.

            Example:
              handover admin restore /backups/handover-2026-11-26.sqlite --data-dir /var/lib/handover
            """)

    @Argument(help: ArgumentHelp("The backup file.", valueName: "file"))
    var file: String

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let configuration = try storage.sqliteConfiguration(orElse: "a PostgreSQL database is restored with pg_restore")
        let summary = try await SQLiteBackup.restore(dataDirectory: configuration.dataDirectory, from: URL(fileURLWithPath: file))
        print("Restored \(file) (schema version \(summary.schemaVersion)) as \(summary.file.path)"
              + (summary.keptAside.map { "; the database it replaced is kept as \($0.lastPathComponent)" } ?? "; the data directory held no database before")
              + ".")
        if summary.needsKey {
            let keyFile = configuration.dataDirectory.appendingPathComponent("token-encryption.key").path
            print("Before starting the server, copy token-encryption.key from the data directory of the server that made the backup to "
                  + "\(keyFile) (chmod 600), or set HANDOVER_TOKEN_ENCRYPTION_KEY: the database's secrets are sealed with it.")
        }
    }
}

extension StorageOptions {
    /// The configuration, for a command that works on the SQLite file only; with a PostgreSQL
    /// database it is a usage mistake, `postgres` saying what to use instead.
    func sqliteConfiguration(orElse postgres: String) throws -> ServerConfiguration {
        let configuration = try configuration()
        guard configuration.databaseURL == nil else {
            throw ValidationError("--database: \(postgres) (docs/operations.md); this command works on SQLite.")
        }
        return configuration
    }
}
