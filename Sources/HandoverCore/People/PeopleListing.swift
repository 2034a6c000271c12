import Foundation
import HandoverSchema

/// What the People page lists (read through ``PeopleStore``).
extension Person {
    /// The `limit` people who signed in last, most recent first.
    package static func lastSignedIn(_ limit: Int, on database: DatabaseHandle) async throws -> [Person] {
        try await PeopleStore(database).lastSignedIn(limit)
    }
}

extension AdminEvent {
    /// The newest `limit` events of the administrators' history, newest first.
    package static func newest(_ limit: Int, on database: DatabaseHandle) async throws -> [AdminEvent] {
        try await PeopleStore(database).newestAdminEvents(limit)
    }
}
