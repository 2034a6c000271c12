#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where the first start puts the admin key it makes: `first-admin-key` in the data directory,
/// readable by the server's user only (0600), its path printed instead of the key (issue 66,
/// item 7). Standard output is the journal under the shipped systemd unit, and a log is no place
/// for a secret; on a terminal, where nothing keeps it, the key is shown too.
enum FirstAdminKeyFile {
    static let name = "first-admin-key"

    /// Writes `key` to the file (one an earlier database left is replaced: a first start means
    /// this database has no admin key, so that one opens nothing) and returns the lines to print.
    static func announce(_ key: String, in directory: URL, baseURL: URL, onTerminal: Bool) -> String {
        let path = directory.appendingPathComponent(name).path
        let another = "Another key at any time: handover admin create-key --scope admin --name \"IT on-call\" --data-dir \(directory.path)"
        do {
            try write(key, to: path, in: directory)
        } catch {
            let reason = (error as? KeysFile.CannotCreate).map { String(cString: strerror($0.code)) } ?? "\(error)"
            return """

                First start: an admin key was made, but \(path) could not be written (\(reason)).
                \(onTerminal ? "It is shown only now:\n  \(key)" : "It is not printed here, where a log may keep it. Make one with the command below.")
                \(another)

                """
        }
        let shown = onTerminal ? "\n  \(key)\nTry: curl -H 'Authorization: Bearer \(key)' \(baseURL.absoluteString)/api/v1/apps" : ""
        return """

            First start: an admin key was made and written to \(path) (readable by this user only; \
            not printed unless this is a terminal, since a log may keep it). Read it, keep it somewhere safe, and delete the file.\(shown)
            \(another)

            """
    }

    /// Creates the file exclusively (never through a link), owner-only, with the key and a line end.
    private static func write(_ key: String, to path: String, in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        unlink(path)
        let file = try KeysFile(creating: path)
        try file.write(key + "\n")
    }
}
