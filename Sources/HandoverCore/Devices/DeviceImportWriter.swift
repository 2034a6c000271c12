import Foundation
import HandoverSchema

/// The writes of a device import (``DeviceImportPlan`` decides which rows go in): each accepted
/// row becomes a device with its device key, in the caller's batches, each batch one transaction.
/// The statements are ``DeviceStore``'s (the devices) and ``APIKeyIssuer``'s (their keys).
package enum DeviceImportWriter {
    /// A row registered, with its device's id and key (shown once).
    package struct Registered: Sendable {
        package var row: DeviceImportPlan.Row
        package var id: UUID
        package var key: String
    }

    /// The registered devices' serial numbers and names: a row that repeats one is refused.
    package static func registeredSerialNumbers(on database: DatabaseHandle) async throws -> [String: String] {
        let registered = try await DeviceStore(database).devicesWithSerialNumber()
        return Dictionary(registered.compactMap { device in device.serialNumber.map { ($0, device.name) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Registers `rows` and their keys in one transaction.
    package static func write(_ rows: [DeviceImportPlan.Row], now: Date, on database: DatabaseHandle) async throws -> [Registered] {
        try await database.inTransaction { db in try await insert(rows, on: db, now: now) }
    }

    /// Registers every batch in one transaction: all or none. `progress` hears the rows
    /// registered so far and the total after each batch.
    package static func writeAll(_ batches: [[DeviceImportPlan.Row]], now: Date, on database: DatabaseHandle,
                                 progress: @escaping @Sendable (Int, Int) async throws -> Void) async throws -> [Registered] {
        let total = batches.reduce(0) { $0 + $1.count }
        return try await database.inTransaction { db in
            var registered: [Registered] = []
            for batch in batches {
                registered += try await insert(batch, on: db, now: now)
                try await progress(registered.count, total)
            }
            return registered
        }
    }

    /// Registers `rows` and their keys in the caller's transaction.
    private static func insert(_ rows: [DeviceImportPlan.Row], on db: DatabaseHandle, now: Date) async throws -> [Registered] {
        var registered: [Registered] = []
        for row in rows {
            let device = Device(name: row.name, createdAt: now)
            device.serialNumber = row.serialNumber
            device.mdmDeviceID = row.mdmDeviceID
            device.place(at: row.site)
            try await DeviceStore(db).create(device)
            let id = try device.storedID
            let key = try await APIKeyIssuer.create(name: "device \(row.name)", scope: .device, deviceID: id, on: db, now: now)
            registered.append(Registered(row: row, id: id, key: key))
        }
        return registered
    }
}
