import Foundation
import HandoverSchema

/// The administrators' side of out-of-band sign-in: the users locked out, and the phones enrolled.
extension OperationService {
    /// The locked users, most recent first (at most 1,000).
    package func locks() async throws -> [OutOfBandLock] {
        try await OutOfBandStore(database).locks()
    }

    /// Lets `user` sign in out-of-band again: false when they were not locked.
    package func unlock(_ user: String) async throws -> Bool {
        let store = OutOfBandStore(database)
        guard let lock = try await store.lock(of: user) else { return false }
        try await store.remove(lock)
        return true
    }

    /// The phones enrolled for `user` (or for everyone), newest first (at most 500).
    package func enrolledPhones(of user: String?) async throws -> [EnrolledDevice] {
        try await OutOfBandStore(database).enrolledPhones(of: user)
    }
}
