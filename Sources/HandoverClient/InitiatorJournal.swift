import Foundation

/// The launcher's durable state: one JSON file, replaced atomically (temp file, fsync, rename,
/// folder fsync) at every transition, so a killed launcher resumes its run.
public struct InitiatorJournal: Sendable {
    /// What is stored.
    public struct Record: Sendable, Equatable, Codable {
        public var runID: String
        public var apps: [AppLogoutState]
    }

    public let file: URL

    public init(file: URL) throws(JournalError) {
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw JournalError(operation: "create folder", path: file.deletingLastPathComponent().path, code: 0, detail: "\(error)")
        }
        self.file = file
    }

    public func save(_ record: Record) throws(JournalError) {
        let data: Data
        do { data = try JSONEncoder().encode(record) } catch {
            throw JournalError(operation: "encode", path: file.path, code: 0, detail: "\(error)")
        }
        try DurableFile.write(data, to: file)
    }

    /// The stored run, or `nil` when there is none.
    public func load() throws(JournalError) -> Record? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try JSONDecoder().decode(Record.self, from: Data(contentsOf: file))
        } catch {
            throw JournalError(operation: "decode", path: file.path, code: 0, detail: "\(error)")
        }
    }

    /// Forgets the run.
    public func clear() throws(JournalError) { try DurableFile.remove(file) }
}
