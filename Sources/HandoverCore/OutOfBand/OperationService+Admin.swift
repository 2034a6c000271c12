import FluentKit
import Foundation
import HandoverSchema

/// The administrators' side of out-of-band sign-in: the users locked out, and the phones enrolled.
extension OperationService {
    /// The locked users, most recent first (at most 1,000).
    package func locks() async throws -> [OutOfBandLock] {
        try await OutOfBandLock.query(on: database).sort(\.$lockedAt, .descending).limit(1000).all()
    }

    /// Lets `user` sign in out-of-band again: false when they were not locked.
    package func unlock(_ user: String) async throws -> Bool {
        guard let lock = try await OutOfBandLock.find(user, on: database) else { return false }
        try await lock.delete(on: database)
        return true
    }

    /// The phones enrolled for `user` (or for everyone), newest first (at most 500).
    package func enrolledPhones(of user: String?) async throws -> [EnrolledDevice] {
        var query = EnrolledDevice.query(on: database)
        if let user { query = query.filter(\.$user == user) }
        return try await query.sort(\.$enrolledAt, .descending).limit(500).all()
    }
}

extension OutOfBandLock {
    /// The user locked out (the lock's id).
    package var user: String {
        get throws { try requireID() }
    }
}
