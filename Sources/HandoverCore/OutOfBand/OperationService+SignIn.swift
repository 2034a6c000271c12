import Foundation
import HandoverSchema

/// What "sign in on this computer with your phone" and enrollment from a session keep beside the
/// operation itself: the phone a user approves on, the fleet device an enrollment belongs to,
/// the user an out-of-band handle names, and the one collection of an approved request's session.
extension OperationService {
    /// The user's newest phone still enrolled, if any.
    package func enrolledPhone(of user: String) async throws -> EnrolledDevice? {
        try await OutOfBandStore(database).phone(for: user, id: nil)
    }

    /// An enrolled phone by its id.
    package func phone(_ id: String) async throws -> EnrolledDevice? {
        try await OutOfBandStore(database).phone(id)
    }

    /// Binds an enrollment operation to the fleet device of the session that started it (when that
    /// session is on one): the phone enrolled by it belongs to that device.
    package func bindToFleetDevice(_ operationID: UUID, ofSession sessionID: UUID) async throws {
        guard let fleetDevice = try await UserSession.stored(sessionID, on: database)?.deviceID else { return }
        try await OutOfBandStore(database).bind(operation: operationID, toFleetDevice: fleetDevice)
    }

    /// Marks an approved operation's session collected: true the first time only, so a browser
    /// collects it once.
    package func claimSession(of operationID: UUID) async throws -> Bool {
        try await OutOfBandStore(database).claimSession(of: operationID, at: clock.now())
    }

    /// The server's user for an out-of-band handle: a user id (enrollment from a session), or
    /// the user first seen here under that handle.
    package func user(forHandle handle: String) async throws -> User {
        let store = OutOfBandStore(database)
        if let id = UUID(uuidString: handle), let user = try await User.stored(id, on: database) { return user }
        if let user = try await store.user(withHandle: handle) { return user }
        let user = User()
        user.outOfBandHandle = handle
        user.emailForwardingDisabled = false
        user.createdAt = clock.now()
        try await store.create(user)
        return user
    }
}

extension OperationService {
    /// The phone enrolled as `id`, unless it was deregistered.
    package func enrolledPhone(_ id: String) async throws -> EnrolledDevice? {
        try await OutOfBandStore(database).enrolledPhone(id)
    }

    /// Keeps the phone's APNs token, as active.
    package func setPushToken(_ token: String, of phone: EnrolledDevice) async throws {
        phone.pushToken = token
        phone.pushTokenActive = true
        try await OutOfBandStore(database).save(phone)
    }
}
