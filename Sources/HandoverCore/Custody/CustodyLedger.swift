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

    /// Checks the devices of a batch of starting runs in: the hand-over. One statement per held
    /// device, inside the runs' transaction.
    package static func checkIn(_ handOvers: [(device: UUID, run: UUID)], on sql: any SQLDatabase, now: Date) async throws {
        for (device, run) in handOvers {
            try await sql.raw("""
                UPDATE custodies SET checked_in_at = \(bind: now), run_id = \(bind: run) WHERE device_id = \(bind: device) AND checked_in_at IS NULL
                """).run()
        }
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
