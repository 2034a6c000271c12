import FluentKit
import Foundation
import HandoverSchema
import OutOfBand
import SQLKit

/// The out-of-band area's statements: operations (`oob_operations`) and their conditional status
/// changes, the phones enrolled to answer them, the users locked out, the tenant's callback
/// allowlist, and the users an out-of-band handle names.
package struct OutOfBandStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) { self.database = database }

    // MARK: Callback allowlist

    /// The tenant's callback allowlist, if one was ever set.
    package func allowlistRecord() async throws -> CallbackAllowlistRecord? {
        try await CallbackAllowlistRecord.find(CallbackAllowlistRecord.defaultTenant, on: database)
    }

    /// Writes the callback allowlist (inserted the first time).
    package func save(_ record: CallbackAllowlistRecord) async throws {
        try await record.save(on: database)
    }

    // MARK: Operations

    /// Inserts a new operation.
    package func create(_ operation: OutOfBandOperation) async throws {
        try await operation.create(on: database)
    }

    /// Keeps what APNs said of an operation's push.
    package func setPushOutcome(_ outcome: String, ofOperation id: UUID) async throws {
        try await OutOfBandOperation.query(on: database).filter(\.$id == id)
            .set(\.$pushOutcome, to: outcome).update()
    }

    /// Binds an enrollment operation to the fleet device `fleetDevice`.
    package func bind(operation operationID: UUID, toFleetDevice fleetDevice: UUID) async throws {
        try await OutOfBandOperation.query(on: database).filter(\.$id == operationID).set(\.$fleetDeviceID, to: fleetDevice).update()
    }

    /// Marks operation `id` reported as "this was not me" at `now`.
    package func markReported(_ id: UUID, at now: Date) async throws {
        try await OutOfBandOperation.query(on: database).filter(\.$id == id).set(\.$reportedAt, to: now).update()
    }

    /// Marks an approved operation's session collected at `now`: true the first time only.
    package func claimSession(of operationID: UUID, at now: Date) async throws -> Bool {
        let sql = try ServerDatabases.sql(database)
        let claimed = try await sql.raw("""
            UPDATE oob_operations SET session_claimed_at = \(bind: now)
            WHERE id = \(bind: operationID) AND session_claimed_at IS NULL RETURNING id
            """).all()
        return !claimed.isEmpty
    }

    /// Counts a wrong code on an operation still waiting for its answer; returns the wrong codes
    /// so far, or nil when the operation was answered already.
    package func countWrongCode(_ id: UUID) async throws -> Int? {
        let sql = try ServerDatabases.sql(database, code: "no_sql")
        let rows = try await sql.raw("""
            UPDATE oob_operations SET code_attempts = COALESCE(code_attempts, 0) + 1
            WHERE id = \(bind: id) AND status IN ('created', 'dispatched') RETURNING code_attempts
            """).all()
        return try rows.first?.decode(column: "code_attempts", as: Int.self)
    }

    /// Marks every operation past its expiry at `time` `expired`, through `writes`; returns the
    /// ids of those it marked (nil for one whose id could not be read). Nothing on a database
    /// that does not speak SQL.
    package func expireDue(at time: Date, through writes: WriteGate) async throws -> [UUID?] {
        guard let sql = database as? any SQLDatabase else { return [] }
        let rows = try await writes.write {
            try await sql.raw("""
                UPDATE oob_operations SET status = 'expired', updated_at = \(bind: time), failure_code = 'expired',
                failure_reason = 'no answer came before the operation expired'
                WHERE status IN ('created', 'dispatched') AND expires_at <= \(bind: time) RETURNING id
                """).all()
        }
        return rows.map { try? $0.decode(column: "id", as: UUID.self) }
    }

    /// One conditional UPDATE of an operation's status; returns whether it changed the row.
    package func move(_ id: UUID, from: [OperationStatus], to: OperationStatus, answeredBy: String?, failure: AnswerRejection?,
                      now: Date, onlyIfDue: Bool = false) async throws -> Bool {
        let sql = try ServerDatabases.sql(database, code: "no_sql")
        var query = SQLQueryString("UPDATE oob_operations SET status = \(bind: to.rawValue), updated_at = \(bind: now)")
        if let answeredBy { query.appendLiteral(", answered_by = "); query.appendInterpolation(bind: answeredBy) }
        if let failure {
            query.appendLiteral(", failure_code = ")
            query.appendInterpolation(bind: failure.code)
            query.appendLiteral(", failure_reason = ")
            query.appendInterpolation(bind: failure.description)
        }
        query.appendLiteral(" WHERE id = ")
        query.appendInterpolation(bind: id)
        query.appendLiteral(" AND status IN (" + from.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")")
        if onlyIfDue {
            query.appendLiteral(" AND expires_at <= ")
            query.appendInterpolation(bind: now)
        }
        query.appendLiteral(" RETURNING id")
        return try await !sql.raw(query).all().isEmpty
    }

    // MARK: Enrolled phones

    /// The phone an operation for `user` goes to: the one with `id`, or (no id) the user's most
    /// recently enrolled; only phones still enrolled.
    package func phone(for user: String, id: String?) async throws -> EnrolledDevice? {
        var query = EnrolledDevice.query(on: database).filter(\.$user == user).filter(\.$deregisteredAt == nil)
        if let id { query = query.filter(\.$id == id) }
        return try await query.sort(\.$enrolledAt, .descending).first()
    }

    /// The phone enrolled as `id`, deregistered or not.
    package func phone(_ id: String) async throws -> EnrolledDevice? {
        try await EnrolledDevice.find(id, on: database)
    }

    /// The phone enrolled as `id`, unless it was deregistered.
    package func enrolledPhone(_ id: String) async throws -> EnrolledDevice? {
        try await EnrolledDevice.query(on: database).filter(\.$id == id).filter(\.$deregisteredAt == nil).first()
    }

    /// The phones enrolled for `user` (or for everyone), newest first (at most 500).
    package func enrolledPhones(of user: String?) async throws -> [EnrolledDevice] {
        var query = EnrolledDevice.query(on: database)
        if let user { query = query.filter(\.$user == user) }
        return try await query.sort(\.$enrolledAt, .descending).limit(500).all()
    }

    /// Writes a phone (inserted when it is new).
    package func save(_ phone: EnrolledDevice) async throws {
        try await phone.save(on: database)
    }

    /// Marks phone `id` deregistered at `now`, with its push token turned off.
    package func deregister(phone id: String, at now: Date) async throws {
        try await EnrolledDevice.query(on: database).filter(\.$id == id)
            .set(\.$deregisteredAt, to: now).set(\.$pushTokenActive, to: false).update()
    }

    /// Turns off phone `id`'s push token, if it is still `token` (APNs said it is dead).
    package func deactivatePushToken(_ token: String, ofPhone id: String) async throws {
        try await EnrolledDevice.query(on: database).filter(\.$id == id).filter(\.$pushToken == token)
            .set(\.$pushTokenActive, to: false).update()
    }

    // MARK: Locks

    /// The lock on `user`'s out-of-band sign-in, if any.
    package func lock(of user: String) async throws -> OutOfBandLock? {
        try await OutOfBandLock.find(user, on: database)
    }

    /// The locked users, most recent first (at most 1,000).
    package func locks() async throws -> [OutOfBandLock] {
        try await OutOfBandLock.query(on: database).sort(\.$lockedAt, .descending).limit(1000).all()
    }

    /// Inserts a lock.
    package func create(_ lock: OutOfBandLock) async throws {
        try await lock.create(on: database)
    }

    /// Deletes a lock.
    package func remove(_ lock: OutOfBandLock) async throws {
        try await lock.delete(on: database)
    }

    // MARK: Users

    /// The user first seen here under out-of-band handle `handle`, if any.
    package func user(withHandle handle: String) async throws -> User? {
        try await User.query(on: database).filter(\.$outOfBandHandle == handle).first()
    }

    /// Inserts a new user.
    package func create(_ user: User) async throws {
        try await user.create(on: database)
    }
}

extension OutOfBandLock {
    /// The user locked out (the lock's id).
    package var user: String {
        get throws { try requireID() }
    }
}
