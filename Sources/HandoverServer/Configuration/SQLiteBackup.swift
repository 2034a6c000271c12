import FluentSQLiteDriver
import Foundation
import HandoverCore
import Logging
import NIOPosix
import SQLiteNIO

/// `handover admin backup` and `restore` for the embedded SQLite database (issue 41).
///
/// - A backup is SQLite's `VACUUM INTO`: one read transaction on the live database (WAL mode lets
///   the server go on writing), written to a new file that is whole or absent. It holds
///   everything committed when it began.
/// - A restore needs the server stopped (it takes the data directory's `serve.lock`), checks the
///   backup (`PRAGMA integrity_check`, a schema this build knows), keeps the current database
///   aside as `handover.sqlite.before-restore-<time>`, and puts the backup in its place.
///
/// Neither copies `token-encryption.key`: keep it apart from the backups, and restore with the
/// key of the server that made them.
public enum SQLiteBackup {
    /// What a backup or restore did, for the command's line.
    public struct Summary: Sendable {
        public var file: URL
        public var bytes: Int
        /// The schema version (migrations less one) the file holds.
        public var schemaVersion: Int
        /// For a restore: where the database it replaced was kept.
        public var keptAside: URL?
    }

    /// Why a backup or restore was refused.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Writes a consistent copy of `dataDirectory`'s database to `destination` (which must not
    /// exist), while a server may be running on it.
    public static func backUp(dataDirectory: URL, to destination: URL) async throws -> Summary {
        let database = dataDirectory.appendingPathComponent("handover.sqlite")
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw Refusal(description: "\(database.path) does not exist: give the --data-dir of the server to back up")
        }
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw Refusal(description: "\(destination.path) exists already: a backup never overwrites a file")
        }
        try await withConnection(database) { connection in
            _ = try await connection.query("VACUUM INTO ?", [.text(destination.path)])
        }
        return try await summary(of: destination, keptAside: nil)
    }

    /// Replaces `dataDirectory`'s database with `source`, the server being stopped.
    public static func restore(dataDirectory: URL, from source: URL, now: Date = Date()) async throws -> Summary {
        guard FileManager.default.fileExists(atPath: source.path) else { throw Refusal(description: "\(source.path) does not exist") }
        let lock = try DataDirectory.Lock(dataDirectory)  // refused while a server runs on it
        defer { withExtendedLifetime(lock) {} }
        let checked = try await summary(of: source, keptAside: nil)
        guard checked.schemaVersion <= HandoverSchema.version else {
            throw Refusal(description: "\(source.path) holds schema version \(checked.schemaVersion), newer than this build's \(HandoverSchema.version): restore it with the release that made it")
        }
        let database = dataDirectory.appendingPathComponent("handover.sqlite")
        let manager = FileManager.default
        var keptAside: URL?
        if manager.fileExists(atPath: database.path) {
            let stamp = now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false)).replacingOccurrences(of: ":", with: "")
            let aside = dataDirectory.appendingPathComponent("handover.sqlite.before-restore-\(stamp)")
            try manager.moveItem(at: database, to: aside)
            keptAside = aside
        }
        for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: database.path + suffix) }
        try manager.copyItem(at: source, to: database)
        var result = checked
        result.file = database
        result.keptAside = keptAside
        return result
    }

    /// Checks a database file: whole (`integrity_check`) and Handover's (its migrations table).
    static func summary(of file: URL, keptAside: URL?) async throws -> Summary {
        let version: Int = try await withConnection(file) { connection in
            let integrity = try await connection.query("PRAGMA integrity_check").first?.column("integrity_check")?.string
            guard integrity == "ok" else { throw Refusal(description: "\(file.path) is damaged: \(integrity ?? "no answer to integrity_check")") }
            guard let count = try await connection.query("SELECT COUNT(*) AS n FROM _fluent_migrations").first?.column("n")?.integer else {
                throw Refusal(description: "\(file.path) is not a Handover database (it has no migrations table)")
            }
            return Int(count) - 1
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        return Summary(file: file, bytes: bytes, schemaVersion: version, keptAside: keptAside)
    }

    private static func withConnection<T: Sendable>(_ file: URL, _ body: @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: file.path), logger: Logger(label: "handover.backup"))
        } catch {
            throw Refusal(description: "\(file.path) cannot be opened as SQLite: \(error)")
        }
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            if let refusal = error as? Refusal { throw refusal }
            throw Refusal(description: "\(file.path): \(error)")
        }
    }
}
