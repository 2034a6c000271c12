import Foundation
import HandoverProtocol
import HandoverSchema

/// A device leaving the fleet, in one of two ways, each an admin's decision:
///
/// - **Retire** (``retire(_:note:actor:on:now:)``): for good, its record kept. The state machine
///   decides (``HandoverProtocol/DeviceStatus/Event/retire(note:)``: refused while a hand-over
///   is under way); in one transaction the device becomes `retired` with the note in its history
///   and the audit log, every live key of it is revoked (the dashboard sessions they signed in
///   end with them; their streams end on every instance when announced after the commit), the
///   MDM commands it still owed are cancelled, and whoever held it is checked in. Its history,
///   custody and receipts stay; no run starts on it and it is never overdue.
/// - **Delete** (``delete(_:actor:on:now:)``): only for a device no hand-over or custody names
///   (an import mistake): it, its history and its MDM commands are removed; its revoked keys stay
///   in the key list. A device with a run or a custody is refused (409 `device_has_runs`): its
///   receipts name it, so it is retired instead.
///
/// Both are refused (409 `signed_in_on_device`) while someone is signed in on the device: a
/// hand-over signs them out, and none starts on a retired device.
///
/// The statements are ``DeviceStore``'s, the keys' ``KeyRevocation``'s; each way is one
/// transaction.
package struct DeviceRetirement: Sendable {
    /// Ends the device's keys, and announces their end.
    package let keys: KeyRevocation

    /// What an open custody ends with when its device is retired.
    package static let custodyEnd = "device retired"
    /// What the history and the MDM commands say of a command cancelled by the retirement.
    package static let mdmCancelReason = "not sent: the device was retired first"

    package init(keys: KeyRevocation) {
        self.keys = keys
    }

    /// Retires the device: 404 for an unknown device, 422 naming `note` when it is empty or too
    /// long, 409 `hand_over_under_way` or `device_retired` (``DomainError``). Returns the device,
    /// retired, and how many keys were revoked.
    package func retire(_ deviceID: UUID, note: String, actor: String, on database: DatabaseHandle, now: Date) async throws
        -> (device: Device, revokedKeys: Int) {
        let trimmed = try DeviceLifeCycle.checkedNote(note, saying: "say why the device leaves the fleet (broken, lost for good, sold, recycled)")
        let (device, revoked, sessions) = try await database.inTransaction { db -> (Device, [APIKey], [UUID]) in
            let store = DeviceStore(db)
            // `apply` writes first: it takes the row (and, on SQLite, the database) before reading.
            let transition = try await DeviceLifeCycle.apply(.retire(note: trimmed), to: deviceID, actor: actor, on: db, now: now)
            if case .refuse(let refusal) = transition { throw Self.conflict(refusal) }
            try await Self.requireNobodySignedIn(on: deviceID, store: store)
            let (revoked, sessions) = try await KeyRevocation.revokeLive(ofDevice: deviceID, now: now, on: db)
            // A lock or an erase is for a device still in the fleet: whatever it owed is not sent.
            try await OwedMDMCommands.cancel(for: [deviceID], deviceStatus: .retired, actor: actor, reason: Self.mdmCancelReason,
                                             remediesOnly: false, on: db, now: now)
            // Whoever held it is checked in.
            try await store.checkIn(device: deviceID, endedWithoutRun: Self.custodyEnd, at: now)
            guard let device = try await Device.stored(deviceID, on: db) else { throw DomainError.notFound("device") }
            return (device, revoked, sessions)
        }
        await keys.announce(revoked, sessions, on: database)
        return (device, revoked.count)
    }

    /// Deletes a device no hand-over or custody names: 404 for an unknown device, 409
    /// `device_has_runs` otherwise (``DomainError``, saying to retire it and why). Returns the
    /// device as it was, for the admin history.
    package func delete(_ deviceID: UUID, actor: String, on database: DatabaseHandle, now: Date) async throws -> Device {
        let (device, revoked, sessions) = try await database.inTransaction { db -> (Device, [APIKey], [UUID]) in
            let store = DeviceStore(db)
            // Lock the row first, so no run starts on it between the check and the delete.
            guard try await store.lock([deviceID])[deviceID] != nil,
                  let device = try await Device.stored(deviceID, on: db) else { throw DomainError.notFound("device") }
            let (runs, custodies) = try await store.namings(of: deviceID)
            guard runs == 0, custodies == 0 else { throw Self.namedElsewhere(device, runs: runs, custodies: custodies) }
            try await Self.requireNobodySignedIn(on: deviceID, store: store)
            let (revoked, sessions) = try await KeyRevocation.revokeLive(ofDevice: deviceID, now: now, on: db)
            try await store.delete(device: deviceID)
            return (device, revoked, sessions)
        }
        await keys.announce(revoked, sessions, on: database)
        return device
    }

    /// What the admin history says of a device retired (the API's and the dashboard's words).
    package static func retiredDetail(_ device: Device, note: String) -> String {
        "retired \(describe(device)): \(note.trimmingCharacters(in: .whitespacesAndNewlines))"
    }

    /// What the admin history says of a device deleted.
    package static func deletedDetail(_ device: Device) -> String {
        "deleted \(describe(device)), which no hand-over named"
    }

    /// The device as the admin history names it: name, serial number and site, when known.
    private static func describe(_ device: Device) -> String {
        device.name + (device.serialNumber.map { " (serial \($0))" } ?? "") + (device.site.map { " at \($0)" } ?? "")
    }

    /// Throws 409 `signed_in_on_device` while a hand-over would have something to end on the
    /// device (``HandOverSignOut/occupied(_:on:)``): no hand-over starts on a retired device, so
    /// whoever is signed in on it is signed out first, by handing it over.
    static func requireNobodySignedIn(on deviceID: UUID, store: DeviceStore) async throws {
        guard try await !store.isOccupied(deviceID) else {
            throw DomainError(.conflict, code: "signed_in_on_device",
                              reason: "Someone is signed in on this device (an app session, device sign-on or an enrolled phone): "
                                  + "hand it over first (Hand over now, or POST /api/v1/devices/{id}/logout-runs) so that they are signed "
                                  + "out, then retire or delete it.")
        }
    }

    /// The 409 for a retirement the state machine refuses.
    static func conflict(_ refusal: DeviceStatus.Refusal) -> DomainError {
        switch refusal {
        case .handOverUnderWay:
            DomainError(.conflict, code: refusal.rawValue,
                        reason: "A hand-over is under way on this device: retire it once its run has ended (completed or failed).")
        case .retired:
            DomainError(.conflict, code: refusal.rawValue, reason: "The device is retired already.")
        default:
            DomainError(.conflict, code: refusal.rawValue, reason: "The device cannot be retired now (\(refusal.rawValue)).")
        }
    }

    /// The 409 for a device a hand-over or custody names.
    static func namedElsewhere(_ device: Device, runs: Int, custodies: Int) -> DomainError {
        var named: [String] = []
        if runs > 0 { named.append("\(runs) hand-over\(runs == 1 ? "" : "s") whose receipts name it") }
        if custodies > 0 { named.append("\(custodies) custody record\(custodies == 1 ? "" : "s")") }
        return DomainError(.conflict, code: "device_has_runs",
                           reason: "\(device.name) has \(named.joined(separator: " and ")), so it cannot be deleted: delete is for a device "
                               + "added by mistake. Retire it instead: it leaves the fleet (its key revoked, no hand-over starts on it) "
                               + "and its history, custody and receipts stay.")
    }
}
