import FluentKit
import Foundation

/// A stored row's identity, for the edge: it reads a row by its id, and a row's id, without
/// knowing the database's model protocol.
extension Model where IDValue == UUID {
    /// The id of a row read from (or written to) the database, which always has one. Throws for
    /// a row never stored.
    package var storedID: UUID {
        get throws { try requireID() }
    }

    /// The row with `id`, if there is one.
    package static func stored(_ id: UUID, on database: any Database) async throws -> Self? {
        try await find(id, on: database)
    }

    /// Deletes the row.
    package func remove(on database: any Database) async throws {
        try await delete(on: database)
    }
}
