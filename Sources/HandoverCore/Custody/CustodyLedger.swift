import Foundation
import HandoverSchema

/// Checks devices out to people and in again (issue 40): loads what ``CustodyRules`` weighs,
/// asks it, and applies its plan.
///
/// - A sign-in that carries a device checks it out to the person, under the rules (one device a
///   person by default; a device held by someone else taken over). A refusal is a typed error
///   that names the devices they still hold.
/// - The device's next logout run checks it in (``checkIn(_:on:now:)``, in the run's own
///   transaction).
///
/// A check-out is plain SQL (``CustodyStore``), a few statements for a whole batch whatever its
/// size: the launcher's check-outs of a shift come by the thousand, inside the one writer's
/// transaction.
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
    package func checkOut(_ device: UUID, to user: User, by method: Custody.CheckOut, badgeDigest: String? = nil, on database: DatabaseHandle,
                          now: Date) async throws -> Custody {
        guard let store = CustodyStore(database) else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
        let holder = Holder(id: try user.storedID, fullName: user.fullName, email: user.email)
        let request = CheckOutRequest(device: device, person: .user(holder.id), method: method, badgeDigest: badgeDigest)
        let sites = try await store.lockSites(of: [device])
        try await store.serialize([Self.lockKey(of: holder)])
        return try await record([(request, .success(holder))], sites: sites, in: store, now: now)[0].get()
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
    package func checkOut(_ batch: [CheckOutRequest], on database: DatabaseHandle, now: Date) async -> [Result<Custody, any Error>] {
        do {
            return try await database.inTransaction { db in
                guard let store = CustodyStore(db) else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
                // Written first (SQLite takes its write lock), the devices' rows taken (PostgreSQL)
                // and their sites read with them.
                let sites = try await store.lockSites(of: Set(batch.map(\.device)))
                let people = try await Self.holders(of: batch.map(\.person), in: store, now: now)
                return try await record(Array(zip(batch, people)), sites: sites, in: store, now: now)
            }
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    /// Records check-outs in order, in the caller's transaction, on devices whose `sites` were
    /// read as they were locked, for people serialized on (``lockKey(of:)``): ``CustodyRules``
    /// applied to the open custodies of the batch's people and devices (read in one statement),
    /// then the custodies taken over ended in one statement and the new ones written in one. A
    /// check-out whose person is unknown answers with that refusal and changes nothing.
    private func record(_ checkOuts: [(request: CheckOutRequest, person: Result<Holder, any Error>)], sites: [UUID: (site: String?, key: String?)],
                        in store: CustodyStore, now: Date) async throws -> [Result<Custody, any Error>] {
        let people = Set(checkOuts.compactMap { try? $0.person.get().id }), devices = Set(checkOuts.map(\.request.device))
        let open = try await store.open(people: people, devices: devices)
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
            case .overLimit(let holder, let holding): results.append(.failure(try await refusal(holder, holding: holding, in: store)))
            }
        }
        try await store.end(plan.takenOver, at: now)
        try await store.insert(plan.created)
        return results
    }

    /// The refusal of a person who holds ``limit`` devices already, naming them.
    private func refusal(_ holder: Holder, holding devices: [UUID], in store: CustodyStore) async throws -> DomainError {
        let names = try await store.names(of: devices)
        return DomainError(.conflict, code: "already_holds_a_device",
                           reason: "\(holder.fullName ?? holder.email ?? "This person") still holds \(names.joined(separator: ", ")): "
                               + "hand \(names.count == 1 ? "it" : "them") over (a logout run on \(names.count == 1 ? "it" : "each")) before taking another device.")
    }

    /// Who holds `device` now, if anyone.
    package static func holder(of device: UUID, on database: DatabaseHandle) async throws -> Custody? {
        try await CustodyStore.holder(of: device, on: database)
    }

    /// The device's custodies, newest first.
    package static func history(of device: UUID, limit: Int = 50, on database: DatabaseHandle) async throws -> [Custody] {
        try await CustodyStore.history(of: device, limit: limit, on: database)
    }
}
