import Foundation

/// The data directory of an SQLite server: the database, the at-rest encryption key and nothing
/// else. It is made readable by its owner only (0700), and so is the database (0600): the file
/// holds every device key's hash, every session, and the sealed secrets.
public enum DataDirectory {
    /// The SQLite database's file name.
    public static let databaseFileName = "handover.sqlite"

    /// Creates the directory (0700) and the database file (0600) when missing, and narrows their
    /// permissions when they are wider; throws a ``ConfigurationError`` naming `--data-dir`.
    package static func prepare(_ directory: URL) throws {
        let files = FileManager.default
        let accepted = "a directory this user can create and write (not under a file)"
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ConfigurationError(setting: "--data-dir", problem: "\(directory.path) is a file, not a directory", accepted: accepted)
            }
        } else {
            do {
                try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ConfigurationError(setting: "--data-dir", problem: "\(directory.path) cannot be created (\(reason(error, near: directory)))",
                                         accepted: accepted)
            }
        }
        do {
            try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            let database = directory.appendingPathComponent(databaseFileName).path
            if !files.fileExists(atPath: database) {
                guard files.createFile(atPath: database, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }
            // SQLite gives its -wal and -shm files the database file's permissions.
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: database)
        } catch {
            throw ConfigurationError(setting: "--data-dir", problem: "\(directory.path) cannot be written (\(reason(error, near: directory)))",
                                     accepted: accepted)
        }
    }

    /// For the commands that work on a server's database (`handover admin …`): the directory must
    /// hold a Handover database already. Throws a ``ConfigurationError`` naming `--data-dir`, the
    /// folder and how to make one; creates nothing, so a mistyped path leaves no empty database
    /// behind for a server to start on later.
    package static func requireDatabase(_ directory: URL) throws {
        let database = directory.appendingPathComponent(databaseFileName)
        let size = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) ?? nil
        guard let size, size > 0 else {
            throw ConfigurationError(
                setting: "--data-dir", problem: "\(directory.path) holds no Handover database (no \(databaseFileName))",
                accepted: "the data directory of a server (`handover serve --data-dir \(directory.path)` creates one on its first start), "
                    + "or --database with a PostgreSQL URL")
        }
    }

    /// A short reason for a file-system failure: a file in the way, or no permission.
    private static func reason(_ error: any Error, near directory: URL) -> String {
        var ancestor = directory.deletingLastPathComponent()
        while ancestor.path != "/" && !ancestor.path.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(ancestor.path) is a file" }
                break
            }
            ancestor.deleteLastPathComponent()
        }
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain,
           let message = strerror(Int32(posix.code)) {
            return String(cString: message)
        }
        return "permission denied or read-only file system"
    }
}

extension DataDirectory {
    /// Holds a data directory for one `handover serve`: a second server on the same SQLite
    /// directory would share its database file but none of its in-memory state (the callback
    /// recorder's queue, live run streams), so it is refused at start. The lock is an advisory
    /// `flock` on `serve.lock`, released when the process ends, however it ends.
    public final class Lock: Sendable {
        private let descriptor: Int32

        /// Takes the lock, or throws a ``ConfigurationError`` naming the process that holds it.
        public init(_ directory: URL) throws {
            try DataDirectory.prepare(directory)
            let path = directory.appendingPathComponent("serve.lock").path
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw ConfigurationError(setting: "--data-dir", problem: "\(path) cannot be opened", accepted: "a data directory this user can write")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                close(descriptor)
                throw ConfigurationError(
                    setting: "--data-dir",
                    problem: "another handover serve\(holder.isEmpty ? "" : " (process \(holder))") is already using \(directory.path)",
                    accepted: "one data directory per server; to run several instances, give them one PostgreSQL database (--database) and each its own data directory")
            }
            _ = ftruncate(descriptor, 0)
            let pid = "\(getpid())\n"
            _ = pid.withCString { write(descriptor, $0, strlen($0)) }
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }
    }
}
