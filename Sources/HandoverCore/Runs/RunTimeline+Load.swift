import Foundation
import HandoverProtocol
import HandoverSchema

/// A run's timeline read from the database: the run's view, and what its items do not keep.
extension RunTimeline {
    /// Reads what the items do not keep (reissues, backend and webhook deliveries) and builds the timeline.
    package static func load(of run: LogoutRunView, device: String, on database: DatabaseHandle) async throws -> RunTimeline {
        let reissues = try await LogoutItemReissue.all(ofRun: run.id, on: database).map {
            RunTimeline.Reissue(itemID: $0.itemID, attempt: $0.attempt, missedDeadlineAt: $0.missedDeadlineAt, issuedAt: $0.issuedAt,
                                deadlineAt: $0.deadlineAt)
        }
        let backendRows = try await BackChannelLogoutDelivery.all(ofRun: run.id, on: database)
        let apps = try await RegisteredApp.all(ids: Set(run.items.map(\.appID)), on: database)
        let appByClient = Dictionary(apps.flatMap { app in RegisteredClients.clientIDs(of: app).map { ($0, app.name) } },
                                     uniquingKeysWith: { first, _ in first })
        let backends = backendRows.map {
            RunTimeline.BackendDelivery(app: appByClient[$0.clientID] ?? $0.clientID, clientID: $0.clientID, state: $0.status,
                                        attempts: $0.attempts, createdAt: $0.createdAt, deliveredAt: $0.deliveredAt,
                                        lastStatusCode: $0.lastStatusCode, lastError: $0.lastError)
        }
        let webhookRows = try await HandoverSchema.WebhookDelivery.all(ofRun: run.id, on: database)
        let hooks = try await Webhook.all(ids: Set(webhookRows.map(\.webhookID)), on: database)
        let urlByHook = Dictionary(hooks.compactMap { hook in hook.id.map { ($0, hook.url) } }, uniquingKeysWith: { first, _ in first })
        let webhooks = webhookRows.map {
            RunTimeline.WebhookDelivery(event: $0.event, url: urlByHook[$0.webhookID] ?? "a deleted webhook", status: $0.status,
                                        attempts: $0.attempts, createdAt: $0.createdAt, deliveredAt: $0.deliveredAt,
                                        lastStatusCode: $0.lastStatusCode, lastError: $0.lastError)
        }
        return RunTimeline(run: run, device: device, reissues: reissues, backends: backends, webhooks: webhooks)
    }
}
