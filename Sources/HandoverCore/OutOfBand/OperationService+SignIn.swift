import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// What "sign in on this computer with your phone" and enrollment from a session keep beside the
/// operation itself: the phone a user approves on, the fleet device an enrollment belongs to,
/// the user an out-of-band handle names, and the one collection of an approved request's session.
extension OperationService {
    /// The user's newest phone still enrolled, if any.
    package func enrolledPhone(of user: String) async throws -> EnrolledDevice? {
        try await EnrolledDevice.query(on: database).filter(\.$user == user).filter(\.$deregisteredAt == nil)
            .sort(\.$enrolledAt, .descending).first()
    }

    /// An enrolled phone by its id.
    package func phone(_ id: String) async throws -> EnrolledDevice? {
        try await EnrolledDevice.find(id, on: database)
    }

    /// Binds an enrollment operation to the fleet device of the session that started it (when that
    /// session is on one): the phone enrolled by it belongs to that device.
    package func bindToFleetDevice(_ operationID: UUID, ofSession sessionID: UUID) async throws {
        guard let fleetDevice = try await UserSession.find(sessionID, on: database)?.deviceID else { return }
        try await OutOfBandOperation.query(on: database).filter(\.$id == operationID).set(\.$fleetDeviceID, to: fleetDevice).update()
    }

    /// Marks an approved operation's session collected: true the first time only, so a browser
    /// collects it once.
    package func claimSession(of operationID: UUID) async throws -> Bool {
        let sql = try ServerDatabases.sql(database)
        let claimed = try await sql.raw("""
            UPDATE oob_operations SET session_claimed_at = \(bind: clock.now())
            WHERE id = \(bind: operationID) AND session_claimed_at IS NULL RETURNING id
            """).all()
        return !claimed.isEmpty
    }

    /// The server's user for an out-of-band handle: a user id (enrollment from a session), or
    /// the user first seen here under that handle.
    package func user(forHandle handle: String) async throws -> User {
        if let id = UUID(uuidString: handle), let user = try await User.find(id, on: database) { return user }
        if let user = try await User.query(on: database).filter(\.$outOfBandHandle == handle).first() { return user }
        let user = User()
        user.outOfBandHandle = handle
        user.emailForwardingDisabled = false
        user.createdAt = clock.now()
        try await user.create(on: database)
        return user
    }
}

extension OperationService {
    /// The phone enrolled as `id`, unless it was deregistered.
    package func enrolledPhone(_ id: String) async throws -> EnrolledDevice? {
        try await EnrolledDevice.query(on: database).filter(\.$id == id).filter(\.$deregisteredAt == nil).first()
    }

    /// Keeps the phone's APNs token, as active.
    package func setPushToken(_ token: String, of phone: EnrolledDevice) async throws {
        phone.pushToken = token
        phone.pushTokenActive = true
        try await phone.save(on: database)
    }
}
