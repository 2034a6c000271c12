import FluentKit
import Foundation
import HandoverSchema

/// What the People page lists.
extension Person {
    /// The `limit` people who signed in last, most recent first.
    package static func lastSignedIn(_ limit: Int, on database: any Database) async throws -> [Person] {
        try await query(on: database).sort(\.$lastSignInAt, .descending).limit(limit).all()
    }
}

extension AdminEvent {
    /// The newest `limit` events of the administrators' history, newest first.
    package static func newest(_ limit: Int, on database: any Database) async throws -> [AdminEvent] {
        try await query(on: database).sort(\.$at, .descending).limit(limit).all()
    }
}
