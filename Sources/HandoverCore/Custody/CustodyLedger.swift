import FluentKit
import Foundation
import SQLKit

/// Checks devices out to people and in again (issue 40).
///
/// - A sign-in that carries a device checks it out to the person, unless they already hold it.
/// - A person holds at most ``limit`` devices at once (1 by default; 0 means no limit): a sign-in
///   on another device is refused with a typed error that names the device they still hold.
/// - A device held by someone else is taken over: that custody ends, marked as ended without a
///   hand-over, and the new one begins.
/// - The device's next logout run checks it in (``checkIn(devices:runs:on:now:)``, in the run's
///   own transaction).
package struct CustodyLedger: Sendable {
    /// The most devices one person may hold at once; 0: no limit.
    package var limit: Int

    package init(limit: Int = 1) { self.limit = limit }

    /// Checks `device` out to `user`; returns the custody (the one in progress when they already
    /// hold it).
    ///
    /// - Throws: ``DomainError`` (conflict, `already_holds_a_device`) when the person holds
    ///   ``limit`` other devices.
    @discardableResult
    package func checkOut(_ device: UUID, to user: User, by method: Custody.CheckOut, badgeDigest: String? = nil, on database: any Database,
                          now: Date) async throws -> Custody {
        let userID = try user.requireID()
        // Two check-outs of one person at once (two docks, two instances) wait for each other here.
        try await Self.serialize("custody person " + userID.uuidString, on: database)
        let open = try await Custody.query(on: database).filter(\.$userID == userID).filter(\.$checkedInAt == nil).all()
        if let held = open.first(where: { $0.deviceID == device }) { return held }
        if limit > 0, open.count >= limit {
            let names = try await Device.query(on: database).filter(\.$id ~~ open.map(\.deviceID)).all().map(\.name).sorted()
            throw DomainError(.conflict, code: "already_holds_a_device",
                              reason: "\(user.fullName ?? user.email ?? "This person") still holds \(names.joined(separator: ", ")): "
                                + "hand \(names.count == 1 ? "it" : "them") over (a logout run on \(names.count == 1 ? "it" : "each")) before taking another device.")
        }
        // Someone else still holds the device: their custody ends here, without a hand-over.
        for other in try await Custody.query(on: database).filter(\.$deviceID == device).filter(\.$checkedInAt == nil).all() {
            other.checkedInAt = now
            other.endedWithoutRun = "the next person signed in before a hand-over"
            try await other.update(on: database)
        }
        let custody = Custody()
        custody.deviceID = device
        custody.userID = userID
        custody.personName = user.fullName
        custody.personEmail = user.email
        custody.site = try await Device.find(device, on: database)?.site
        custody.checkedOutBy = method.rawValue
        custody.badgeDigest = badgeDigest
        custody.checkedOutAt = now
        try await custody.create(on: database)
        return custody
    }

    /// One launcher's check-out, for a batch (``checkOut(_:on:now:)``): the device, and the person
    /// by their user id (an access token's subject) or by a badge lookup's login.
    package struct CheckOutRequest: Sendable {
        package enum Person: Sendable {
            case user(UUID)
            /// The person with this email, made on first use.
            case login(String)
        }

        package var device: UUID
        package var person: Person
        package var method: Custody.CheckOut
        package var badgeDigest: String?

        package init(device: UUID, person: Person, method: Custody.CheckOut, badgeDigest: String? = nil) {
            self.device = device
            self.person = person
            self.method = method
            self.badgeDigest = badgeDigest
        }
    }

    /// Checks a batch of launchers' check-outs out in one transaction (group commit: a shift's
    /// thousands of badge taps cost a few commits, not one each): each as
    /// ``checkOut(_:to:by:badgeDigest:on:now:)`` does, in order, after the batch's devices are
    /// locked. A refusal (the one-device limit, an unknown person) answers its own request only; a
    /// storage failure fails the batch.
    package func checkOut(_ batch: [CheckOutRequest], on database: any Database, now: Date) async -> [Result<Custody, any Error>] {
        do {
            return try await database.transaction { db in
                guard let sql = db as? any SQLDatabase else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
                // Written first (SQLite takes its write lock), the devices' rows taken (PostgreSQL).
                _ = try await DeviceLifeCycle.lock(Set(batch.map(\.device)), on: sql)
                var results: [Result<Custody, any Error>] = []
                for request in batch {
                    do {
                        let user = try await Self.person(request.person, on: db, now: now)
                        results.append(.success(try await checkOut(request.device, to: user, by: request.method, badgeDigest: request.badgeDigest,
                                                                   on: db, now: now)))
                    } catch let refusal as DomainError where refusal.kind != .storage {
                        results.append(.failure(refusal))
                    }
                }
                return results
            }
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    /// The person a check-out names: the user with that id, or with that email (made on first use).
    package static func person(_ person: CheckOutRequest.Person, on database: any Database, now: Date) async throws -> User {
        switch person {
        case .user(let id):
            guard let user = try await User.find(id, on: database) else {
                throw DomainError(.unauthenticated, code: "invalid_access_token", reason: "accessToken: its person no longer exists.", field: "accessToken")
            }
            return user
        case .login(let login):
            let email = login.lowercased()
            try await serialize("custody login " + email, on: database)  // made once, however many taps at once
            if let user = try await User.query(on: database).filter(\.$email == email).first() { return user }
            let user = User()
            user.email = email
            user.emailForwardingDisabled = false
            user.createdAt = now
            try await user.create(on: database)
            return user
        }
    }

    /// Holds the rest of the caller's transaction against any other that names the same `key`:
    /// PostgreSQL's transaction-scoped advisory lock; nothing on SQLite, whose writer is one at a
    /// time already.
    static func serialize(_ key: String, on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "postgresql" else { return }
        try await sql.raw("SELECT pg_advisory_xact_lock(hashtextextended(\(bind: key), 0))").run()
    }

    /// Checks the devices of a batch of starting runs in: the hand-over. One statement for the
    /// batch, inside the runs' transaction (the open custodies' partial index finds each).
    package static func checkIn(_ handOvers: [(device: UUID, run: UUID)], on sql: any SQLDatabase, now: Date) async throws {
        guard !handOvers.isEmpty else { return }
        // VALUES names its columns column1, column2 on SQLite and PostgreSQL alike.
        let rows = handOvers.map { handOver -> SQLQueryString in "(\(bind: handOver.device), \(bind: handOver.run))" }
        try await sql.raw("""
            UPDATE custodies SET checked_in_at = \(bind: now), run_id = handover.column2
            FROM (VALUES \(SQLList(rows))) AS handover
            WHERE custodies.device_id = handover.column1 AND custodies.checked_in_at IS NULL
            """).run()
    }

    /// Who holds `device` now, if anyone.
    package static func holder(of device: UUID, on database: any Database) async throws -> Custody? {
        try await Custody.query(on: database).filter(\.$deviceID == device).filter(\.$checkedInAt == nil).first()
    }

    /// The device's custodies, newest first.
    package static func history(of device: UUID, limit: Int = 50, on database: any Database) async throws -> [Custody] {
        try await Custody.query(on: database).filter(\.$deviceID == device).sort(\.$checkedOutAt, .descending).limit(limit).all()
    }
}
