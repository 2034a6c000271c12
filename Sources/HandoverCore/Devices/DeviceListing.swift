import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema

/// What a device's dashboard page lists besides its history.
extension MDMCommand {
    /// The newest `limit` commands sent for a device, newest first.
    package static func newest(_ limit: Int, ofDevice device: UUID, on database: any Database) async throws -> [MDMCommand] {
        try await query(on: database).filter(\.$deviceID == device).sort(\.$createdAt, .descending).limit(limit).all()
    }
}

extension APIKey {
    /// A device's keys, newest first (the live one and those revoked).
    package static func all(ofDevice device: UUID, on database: any Database) async throws -> [APIKey] {
        try await query(on: database).filter(\.$deviceID == device).sort(\.$createdAt, .descending).all()
    }

    /// The keys of people and services (every scope but a device's), oldest first.
    package static func allButDevices(on database: any Database) async throws -> [APIKey] {
        try await query(on: database).filter(\.$scope != APIKeyScope.device.rawValue).sort(\.$createdAt).sort(\.$id).all()
    }
}

extension Device {
    /// The devices, oldest first; only those in `status` and at `site` when given.
    package static func list(status: DeviceStatus?, site: SiteName?, on database: any Database) async throws -> [Device] {
        var query = query(on: database)
        if let status { query = query.filter(\.$status == status) }
        if let site { query = query.filter(\.$siteKey == site.key) }
        return try await query.sort(\.$createdAt).all()
    }
}

extension APIKey {
    /// The keys, oldest first; only those of `scope` and of `device` when given.
    package static func list(scope: String?, device: UUID?, on database: any Database) async throws -> [APIKey] {
        var query = query(on: database)
        if let scope { query = query.filter(\.$scope == scope) }
        if let device { query = query.filter(\.$deviceID == device) }
        return try await query.sort(\.$createdAt).sort(\.$id).all()
    }
}
