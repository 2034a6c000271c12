import FluentKit
import Foundation
import HandoverSchema

/// The registry's lists, as the dashboard's pages show them.
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
}

extension WebhookDelivery {
    /// A webhook's newest `limit` deliveries, newest first.
    package static func newest(_ limit: Int, ofWebhook webhook: UUID, on database: any Database) async throws -> [WebhookDelivery] {
        try await query(on: database).filter(\.$webhookID == webhook).sort(\.$createdAt, .descending).limit(limit).all()
    }
}
