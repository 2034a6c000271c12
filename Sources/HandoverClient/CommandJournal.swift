import Foundation

/// The receiver's durable store: one JSON file per command in a folder, each written with
/// temp file, fsync, rename and a folder fsync (see `DurableFile`).
///
/// A command's file exists from the moment `handle(_:)` accepts it until its callback has been
/// opened; after a kill, ``load()`` returns every command that still needs work.
public struct CommandJournal: Sendable {
    /// The folder that holds the files.
    public let folder: URL

    /// Opens (and creates, if needed) a journal folder.
    public init(folder: URL) throws(JournalError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw JournalError(operation: "create folder", path: folder.path, code: 0, detail: "\(error)")
        }
        self.folder = folder
    }

    private func file(for id: String) -> URL { folder.appendingPathComponent("\(id).command.json") }

    /// Writes a command durably.
    public func save(_ command: LogoutCommand) throws(JournalError) {
        let data: Data
        do { data = try JSONEncoder().encode(command) } catch {
            throw JournalError(operation: "encode", path: file(for: command.id).path, code: 0, detail: "\(error)")
        }
        try DurableFile.write(data, to: file(for: command.id))
    }

    /// Forgets a finished command.
    public func remove(id: String) throws(JournalError) {
        try DurableFile.remove(file(for: id))
    }

    /// Every command on disk, oldest first. Leftover temp files (a kill mid-write) are ignored:
    /// the rename never happened, so the command was never acknowledged.
    public func load() throws(JournalError) -> [LogoutCommand] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw JournalError(operation: "list", path: folder.path, code: 0, detail: "\(error)")
        }
        var commands: [LogoutCommand] = []
        for name in names where name.hasSuffix(".command.json") && !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            do {
                let data = try Data(contentsOf: url)
                commands.append(try JSONDecoder().decode(LogoutCommand.self, from: data))
            } catch {
                throw JournalError(operation: "decode", path: url.path, code: 0, detail: "\(error)")
            }
        }
        return commands.sorted { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
    }
}
