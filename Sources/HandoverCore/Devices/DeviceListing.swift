import Foundation
import HandoverProtocol
import HandoverSchema

/// What a device's dashboard page lists besides its history, and the API's lists of devices and
/// keys. The statements are ``DeviceStore``'s.
extension MDMCommand {
    /// The newest `limit` commands sent for a device, newest first.
    package static func newest(_ limit: Int, ofDevice device: UUID, on database: DatabaseHandle) async throws -> [MDMCommand] {
        try await DeviceStore(database).newestCommands(limit, ofDevice: device)
    }
}

extension APIKey {
    /// A device's keys, newest first (the live one and those revoked).
    package static func all(ofDevice device: UUID, on database: DatabaseHandle) async throws -> [APIKey] {
        try await DeviceStore(database).keys(ofDevice: device)
    }

    /// The keys of people and services (every scope but a device's), oldest first.
    package static func allButDevices(on database: DatabaseHandle) async throws -> [APIKey] {
        try await DeviceStore(database).keysButDevices()
    }
}

extension Device {
    /// The devices, oldest first; only those in `status` and at `site` when given.
    package static func list(status: DeviceStatus?, site: SiteName?, on database: DatabaseHandle) async throws -> [Device] {
        try await DeviceStore(database).devices(status: status, site: site)
    }
}

extension APIKey {
    /// The keys, oldest first; only those of `scope` and of `device` when given.
    package static func list(scope: String?, device: UUID?, on database: DatabaseHandle) async throws -> [APIKey] {
        try await DeviceStore(database).keys(scope: scope, device: device)
    }
}
