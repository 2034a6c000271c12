import FluentKit
import Foundation
import PostgresNIO

/// The database as a service holds it: a handle it passes to its area's store, which holds the
/// queries. A file that does not import FluentKit or SQLKit (the core builds with
/// `MemberImportVisibility`) can name it, run a unit of work on it and read or remove a row by
/// id, and nothing else: every other statement lives in a store beside the service.
package typealias DatabaseHandle = any Database

extension Database {
    /// Runs `work` in one transaction: every store it writes through commits together or not at
    /// all. Inside a transaction already, `work` joins it (FluentKit's nesting). On PostgreSQL the
    /// transaction is ``PostgresTransaction``'s, which lets go of a connection PostgreSQL closed
    /// under it; every transaction the server runs goes through here.
    package func inTransaction<T: Sendable>(_ work: @escaping @Sendable (DatabaseHandle) async throws -> T) async throws -> T {
        if inTransaction { return try await work(self) }
        if self is any PostgresDatabase { return try await PostgresTransaction.run(on: self, work) }
        return try await transaction { try await work($0) }
    }
}

/// A stored row's identity, for a service and the edge: they read a row by its id, and a row's
/// id, without knowing the database's model protocol.
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
