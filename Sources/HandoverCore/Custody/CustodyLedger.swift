import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// Checks devices out to people and in again (issue 40): loads what ``CustodyRules`` weighs,
/// asks it, and applies its plan.
///
/// - A sign-in that carries a device checks it out to the person, under the rules (one device a
///   person by default; a device held by someone else taken over). A refusal is a typed error
///   that names the devices they still hold.
/// - The device's next logout run checks it in (``checkIn(_:on:now:)``, in the run's own
///   transaction).
///
/// A check-out is plain SQL, a few statements for a whole batch whatever its size: the launcher's
/// check-outs of a shift come by the thousand, inside the one writer's transaction.
package struct CustodyLedger: Sendable {
    /// The most devices one person may hold at once; 0: no limit.
    package var limit: Int

    package init(limit: Int = 1) { self.limit = limit }

    /// The person a custody names (``CustodyRules/Holder``).
    typealias Holder = CustodyRules.Holder

    /// Checks `device` out to `user`; returns the custody (the one in progress when they already
    /// hold it).
    ///
    /// - Throws: ``DomainError`` (conflict, `already_holds_a_device`) when the person holds
    ///   ``limit`` other devices.
    @discardableResult
    package func checkOut(_ device: UUID, to user: User, by method: Custody.CheckOut, badgeDigest: String? = nil, on database: any Database,
                          now: Date) async throws -> Custody {
        guard let sql = database as? any SQLDatabase else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
        let holder = Holder(id: try user.requireID(), fullName: user.fullName, email: user.email)
        let request = CheckOutRequest(device: device, person: .user(holder.id), method: method, badgeDigest: badgeDigest)
        return try await record([(request, .success(holder))], on: sql, now: now)[0].get()
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
                let people = try await Self.holders(of: batch.map(\.person), on: sql, now: now)
                return try await record(Array(zip(batch, people)), on: sql, now: now)
            }
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    /// Records check-outs in order, in the caller's transaction: ``CustodyRules`` applied to the
    /// open custodies of the batch's people and devices (read in one statement), then the
    /// custodies taken over ended in one statement and the new ones written in one. A check-out
    /// whose person is unknown answers with that refusal and changes nothing.
    private func record(_ checkOuts: [(request: CheckOutRequest, person: Result<Holder, any Error>)], on sql: any SQLDatabase,
                        now: Date) async throws -> [Result<Custody, any Error>] {
        let people = Set(checkOuts.compactMap { try? $0.person.get().id }), devices = Set(checkOuts.map(\.request.device))
        // Two check-outs of one person at once (two docks, two instances) wait for each other here.
        try await Self.serialize(people.map { "custody person " + $0.uuidString }, on: sql)
        let open = try await OpenCustody.open(people: people, devices: devices, on: sql)
        let sites = try await Self.sites(of: devices, on: sql)
        let plan = CustodyRules(limit: limit).plan(checkOuts.map { request, person in
            CustodyRules.CheckOut(device: request.device, holder: try? person.get(), method: request.method.rawValue,
                                  badgeDigest: request.badgeDigest, site: sites[request.device]?.site, siteKey: sites[request.device]?.key)
        }, open: open, now: now)
        var results: [Result<Custody, any Error>] = []
        for ((_, person), verdict) in zip(checkOuts, plan.verdicts) {
            switch verdict {
            case .unknownPerson:
                // The rules see no holder exactly when the lookup refused the person.
                guard case .failure(let refusal) = person else { preconditionFailure("a known person read as unknown") }
                results.append(.failure(refusal))
            case .holds(let custody), .checkedOut(let custody): results.append(.success(custody.model))
            case .overLimit(let holder, let holding): results.append(.failure(try await refusal(holder, holding: holding, on: sql)))
            }
        }
        try await OpenCustody.end(plan.takenOver, at: now, on: sql)
        try await OpenCustody.insert(plan.created, on: sql)
        return results
    }

    /// The refusal of a person who holds ``limit`` devices already, naming them.
    private func refusal(_ holder: Holder, holding devices: [UUID], on sql: any SQLDatabase) async throws -> DomainError {
        let names = try await sql.raw("SELECT name FROM devices WHERE id IN (\(SQLList(devices.map { SQLBind($0) })))").all()
            .map { try $0.decode(column: "name", as: String.self) }.sorted()
        return DomainError(.conflict, code: "already_holds_a_device",
                           reason: "\(holder.fullName ?? holder.email ?? "This person") still holds \(names.joined(separator: ", ")): "
                               + "hand \(names.count == 1 ? "it" : "them") over (a logout run on \(names.count == 1 ? "it" : "each")) before taking another device.")
    }

    /// Each device's site and its key, for the custodies it begins.
    private static func sites(of devices: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: (site: String?, key: String?)] {
        guard !devices.isEmpty else { return [:] }
        let rows = try await sql.raw("SELECT id, site, site_key FROM devices WHERE id IN (\(SQLList(devices.map { SQLBind($0) })))").all()
        return try Dictionary(rows.map {
            (try $0.decode(column: "id", as: UUID.self), (try $0.decode(column: "site", as: String?.self), try $0.decode(column: "site_key", as: String?.self)))
        }) { first, _ in first }
    }

    /// Holds the rest of the caller's transaction against any other that names one of the same
    /// `keys`: PostgreSQL's transaction-scoped advisory locks, in one statement; nothing on SQLite,
    /// whose writer is one at a time already. `unnest` reads the array in its order, so every
    /// batch takes its locks in the keys' sorted order and two batches never wait for each other
    /// in a circle.
    static func serialize(_ keys: [String], on sql: any SQLDatabase) async throws {
        guard sql.dialect.name == "postgresql", !keys.isEmpty else { return }
        try await sql.raw("SELECT pg_advisory_xact_lock(hashtextextended(key, 0)) FROM unnest(\(bind: Set(keys).sorted())::text[]) AS key").run()
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
