import Foundation

/// Changes a SQLite database file with Python's sqlite3, as someone with the file could: the
/// audit log's tamper tests change and delete entries behind the server's back.
public enum SQLiteByHand {
    /// Runs `statement` on `file` and commits; returns Python's exit status (0 when it ran).
    @discardableResult
    public static func execute(_ statement: String, on file: URL) async throws -> Int32 {
        try await ChildProcess.run(["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
                                    file.path, statement]).status
    }
}
