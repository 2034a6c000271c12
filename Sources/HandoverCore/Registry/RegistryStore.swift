import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// The registry's statements: registered apps, devices and their keys, webhooks, OAuth clients
/// (RFC 7591 registrations) and the sites the fleet's devices are at. The registrars check the
/// fields; this store reads and writes the rows.
package struct RegistryStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) { self.database = database }

    // MARK: Apps

    /// The app called `name`, if one is registered.
    package func app(named name: String) async throws -> RegisteredApp? {
        try await RegisteredApp.query(on: database).filter(\.$name == name).first()
    }

    /// Every registered app, in no particular order.
    package func apps() async throws -> [RegisteredApp] {
        try await RegisteredApp.query(on: database).all()
    }

    /// Inserts a new app.
    package func create(_ app: RegisteredApp) async throws {
        try await app.create(on: database)
    }

    /// Writes an app's changed fields.
    package func save(_ app: RegisteredApp) async throws {
        try await app.save(on: database)
    }

    // MARK: Devices

    /// The device registered with this (normalized) serial number, if any.
    package func device(serialNumber: String) async throws -> Device? {
        try await Device.query(on: database).filter(\.$serialNumber == serialNumber).first()
    }

    /// Inserts a new device and its key, in one transaction; returns the key (shown once).
    package func register(_ device: Device, now: Date) async throws -> String {
        try await database.inTransaction { db in
            try await device.create(on: db)
            let (key, row) = APIKey.make(name: "device \(device.name)", scope: .device, deviceID: try device.requireID(), now: now)
            try await row.create(on: db)
            return key
        }
    }

    /// Writes a device's changed fields.
    package func update(_ device: Device) async throws {
        try await device.update(on: database)
    }

    // MARK: Webhooks

    /// Inserts a new webhook.
    package func create(_ hook: Webhook) async throws {
        try await hook.create(on: database)
    }

    /// Writes a webhook's changed fields.
    package func save(_ hook: Webhook) async throws {
        try await hook.save(on: database)
    }

    // MARK: OAuth clients

    /// Saves the registration (a new client, or the same id registered again with a new secret),
    /// and the logout endpoint on `app` when it is a registered app's backend, in one transaction.
    package func save(_ registration: ClientRegistration, for app: RegisteredApp?, now: Date) async throws {
        // Read before the transaction, which then only writes (on SQLite, a transaction that reads
        // first fails instead of waiting when another connection commits in between).
        let client = try await OAuthClient.query(on: database).filter(\.$clientID == registration.clientID).first() ?? OAuthClient()
        try await database.inTransaction { db in
            client.clientID = registration.clientID
            client.secretHash = registration.secretHash
            client.clientName = registration.clientName
            client.softwareID = registration.softwareID
            client.backchannelLogoutURI = app == nil ? registration.backchannelLogoutURI : nil
            client.backchannelLogoutSessionRequired = registration.backchannelLogoutSessionRequired
            if client.id == nil { client.createdAt = now }
            try await client.save(on: db)
            if let app, let uri = registration.backchannelLogoutURI {
                app.backchannelLogoutURI = uri
                app.backchannelLogoutSessionRequired = registration.backchannelLogoutSessionRequired
                try await app.save(on: db)
            }
        }
    }

    // MARK: Sites

    /// Each site's comparison key (``SiteName/key``) with the name as a device has it written;
    /// empty on a database that does not speak SQL.
    package func fleetSites() async throws -> [String: String] {
        guard let sql = database as? any SQLDatabase else { return [:] }
        let rows = try await sql.raw("SELECT DISTINCT site, site_key FROM devices WHERE site_key IS NOT NULL").all()
        var sites: [String: String] = [:]
        for row in rows {
            let key = try row.decode(column: "site_key", as: String.self)
            let written = try row.decode(column: "site", as: String?.self)
            sites[key] = sites[key] ?? written ?? key
        }
        return sites
    }
}

extension FleetSites {
    /// Each site's comparison key (``SiteName/key``) with the name as a device has it written.
    public static func all(on database: any Database) async throws -> [String: String] {
        try await RegistryStore(database).fleetSites()
    }
}

// MARK: The registry's lists, as the dashboard's pages show them

extension RegisteredApp {
    /// Every registered app, oldest first.
    package static func allByRegistration(on database: any Database) async throws -> [RegisteredApp] {
        try await query(on: database).sort(\.$createdAt).all()
    }

    /// Every registered app, by name.
    package static func allByName(on database: any Database) async throws -> [RegisteredApp] {
        try await query(on: database).sort(\.$name).all()
    }

    /// The apps with these ids (those that still exist).
    package static func all(ids: Set<UUID>, on database: any Database) async throws -> [RegisteredApp] {
        ids.isEmpty ? [] : try await query(on: database).filter(\.$id ~~ ids).all()
    }
}

extension Webhook {
    /// Every webhook, oldest first.
    package static func allByRegistration(on database: any Database) async throws -> [Webhook] {
        try await query(on: database).sort(\.$createdAt).all()
    }

    /// The webhooks with these ids (those that still exist).
    package static func all(ids: Set<UUID>, on database: any Database) async throws -> [Webhook] {
        ids.isEmpty ? [] : try await query(on: database).filter(\.$id ~~ ids).all()
    }
}

extension WebhookDelivery {
    /// The newest `limit` deliveries, newest first.
    package static func newest(_ limit: Int, on database: any Database) async throws -> [WebhookDelivery] {
        try await query(on: database).sort(\.$createdAt, .descending).limit(limit).all()
    }

    /// The deliveries of a run's events.
    package static func all(ofRun run: UUID, on database: any Database) async throws -> [WebhookDelivery] {
        try await query(on: database).filter(\.$runID == run).all()
    }

    /// A webhook's newest `limit` deliveries, newest first.
    package static func newest(_ limit: Int, ofWebhook webhook: UUID, on database: any Database) async throws -> [WebhookDelivery] {
        try await query(on: database).filter(\.$webhookID == webhook).sort(\.$createdAt, .descending).limit(limit).all()
    }
}
