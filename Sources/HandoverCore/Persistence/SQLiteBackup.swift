import Foundation
import HandoverSchema
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
/// key of the server that made them. Every file either writes is readable by its owner only
/// (0600), as the data directory's own files are: a backup holds every key's hash and the
/// sealed secrets.
public enum SQLiteBackup {
    /// What a backup or restore did, for the command's line.
    public struct Summary: Sendable {
        public var file: URL
        public var bytes: Int
        /// The schema version (migrations less one) the file holds.
        public var schemaVersion: Int
        /// For a restore: where the database it replaced was kept (nil: the data directory held
        /// none, or only the empty file a first start makes).
        public var keptAside: URL?
        /// For a restore: whether the data directory lacks the key that opens the database's
        /// sealed secrets (`token-encryption.key`), which must be copied in before a start.
        public var needsKey = false
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
        // Made empty and owner-only first (VACUUM INTO writes into an empty file and keeps its
        // mode); O_EXCL: a backup never overwrites a file, nor one that appears meanwhile.
        let descriptor = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let exists = errno == EEXIST
            throw Refusal(description: exists ? "\(destination.path) exists already: a backup never overwrites a file"
                                              : "\(destination.path) cannot be created: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        do {
            try await withConnection(database) { connection in
                _ = try await connection.query("VACUUM INTO ?", [.text(destination.path)])
            }
        } catch {
            try? FileManager.default.removeItem(at: destination)  // whole or absent
            throw error
        }
        return try await summary(of: destination, keptAside: nil)
    }

    /// Replaces `dataDirectory`'s database with `source`, the server being stopped.
    public static func restore(dataDirectory: URL, from source: URL, now: Date = Date()) async throws -> Summary {
        guard FileManager.default.fileExists(atPath: source.path) else { throw Refusal(description: "\(source.path) does not exist") }
        let lock = try DataDirectory.Lock(dataDirectory)  // refused while a server runs on it
        defer { withExtendedLifetime(lock) {} }
        let checked = try await summary(of: source, keptAside: nil)
        guard checked.schemaVersion <= SchemaHistory.version else {
            throw Refusal(description: "\(source.path) holds schema version \(checked.schemaVersion), newer than this build's \(SchemaHistory.version): restore it with the release that made it")
        }
        let database = dataDirectory.appendingPathComponent("handover.sqlite")
        let manager = FileManager.default
        var keptAside: URL?
        // The lock made an empty database file where there was none (a first start does the
        // same): nothing to keep aside.
        let size = (try? manager.attributesOfItem(atPath: database.path)[.size] as? Int) ?? nil
        if size == 0 { try manager.removeItem(at: database) }
        if manager.fileExists(atPath: database.path) {
            let stamp = now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false)).replacingOccurrences(of: ":", with: "")
            let aside = dataDirectory.appendingPathComponent("handover.sqlite.before-restore-\(stamp)")
            try manager.moveItem(at: database, to: aside)
            keptAside = aside
        }
        for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: database.path + suffix) }
        try manager.copyItem(at: source, to: database)
        // The copy keeps the backup's mode; the data directory (0700) holds it meanwhile.
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: database.path)
        var result = checked
        result.file = database
        result.keptAside = keptAside
        result.needsKey = !manager.fileExists(atPath: dataDirectory.appendingPathComponent(EncryptionKeyFile.fileName).path)
        return result
    }

    /// Refuses a start on a database whose secrets are sealed with a key that is not here (one
    /// restored or copied without its `token-encryption.key`), with a ``ConfigurationError`` that
    /// says which file to copy, from where and to where; creates nothing. A new key could not
    /// open those secrets. Reads nothing when the key is configured or its file is present, or
    /// when the database is new (empty).
    public static func requireEncryptionKey(dataDirectory: URL, configured: String?) async throws {
        guard configured == nil else { return }
        let manager = FileManager.default
        let keyFile = dataDirectory.appendingPathComponent(EncryptionKeyFile.fileName)
        let database = dataDirectory.appendingPathComponent(DataDirectory.databaseFileName)
        guard !manager.fileExists(atPath: keyFile.path) else { return }
        let size = (try? manager.attributesOfItem(atPath: database.path)[.size] as? Int) ?? nil
        guard let size, size > 0 else { return }
        let sealed: Bool = try await withConnection(database) { connection in
            let table = try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'server_settings'")
            guard !table.isEmpty else { return false }
            let value = try await connection.query("SELECT value FROM server_settings WHERE key = ?", [.text(ServerSecrets.nonceKeyName)])
                .first?.column("value")?.string
            return value?.hasPrefix(ServerSecrets.sealedPrefix) ?? false
        }
        guard sealed else { return }
        throw ConfigurationError(
            setting: "--data-dir",
            problem: "\(keyFile.path) is missing, and \(database.path) holds secrets sealed with the key of the server that made it "
                + "(a database restored or copied without its key); no new key was made, as it could not open them",
            accepted: "copy token-encryption.key from the data directory of the server that made the backup to \(keyFile.path) "
                + "(owner only: chmod 600), or set HANDOVER_TOKEN_ENCRYPTION_KEY to its text")
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
