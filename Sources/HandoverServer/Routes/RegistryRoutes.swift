import Fluent
import Foundation
import HandoverCore
import HandoverProtocol
import LinkCallbacks
import UniversalLinks
import Vapor

/// `/api/v1/apps`, `/api/v1/devices` and `/api/v1/webhooks`: the registry, admin only.
struct RegistryRoutes: RouteCollection {
    let context: ServerContext

    func boot(routes: RoutesBuilder) throws {
        let admin = routes.grouped(RequireScope(scopes: [.admin]))
        admin.post("apps", use: createApp)
        admin.get("apps", use: listApps)
        admin.get("apps", ":appID", use: getApp)
        admin.delete("apps", ":appID", use: deleteApp)
        admin.post("devices", use: createDevice)
        admin.get("devices", use: listDevices)
        admin.get("devices", ":deviceID", use: getDevice)
        admin.post("webhooks", use: createWebhook)
        admin.get("webhooks", use: listWebhooks)
        admin.get("webhooks", ":webhookID", "deliveries", use: listDeliveries)
        admin.post("webhooks", ":webhookID", "rotate-secret", use: rotateSecret)
    }

    @Sendable func createApp(_ request: Request) async throws -> Response {
        let input = try request.content.decode(AppInput.self, using: JSONDecoder.api)
        let app = try await Self.createApp(input, context: context, on: request.db)
        return try await AppView(app).encodeResponse(status: .created, for: request)
    }

    /// Validates and stores an app (the API and the dashboard's form both come here); throws
    /// an ``APIError`` naming the field that is wrong.
    static func createApp(_ raw: AppInput, context: ServerContext, on database: Database) async throws -> RegisteredApp {
        let input = try raw.validated(actionPolicy: context.logoutActionPolicy)
        if try await RegisteredApp.query(on: database).filter(\.$name == input.name).first() != nil {
            throw APIError(.conflict, code: "name_taken", reason: "name: an app called '\(input.name)' exists already.", field: "name")
        }
        let app = RegisteredApp()
        app.name = input.name
        app.role = input.role ?? "target"
        app.appIDs = input.appIDs
        app.logoutAction = input.logoutAction
        app.paths = input.paths ?? []
        app.allowedCallbackHosts = input.allowedCallbackHosts ?? []
        app.deadlineSeconds = input.deadlineSeconds ?? 20
        app.maxReissues = input.maxReissues ?? 2
        app.androidPackage = input.androidPackage
        app.androidFingerprints = input.androidFingerprints ?? []
        app.createdAt = context.clock.now()
        // Both association files must stay valid with this app in them: check before saving, so
        // the well-known routes never have an invalid file to serve.
        let others = try await RegisteredApp.query(on: database).all()
        let files = AssociationFiles(publicURL: context.publicURL, claimsEmailSignIn: context.mailer != nil)
        do {
            _ = try files.appleFile(apps: others + [app])
        } catch let error as AssociationFiles.Invalid where error.oversizedBytes != nil {
            let used = (try? files.appleFile(apps: others))??.count ?? 0
            let left = max(0, AssociationValidator.maximumSize - used)
            throw APIError(.unprocessableEntity, code: "association_file_too_large",
                           reason: "paths: the apple-app-site-association file would grow past 128 KB (\(error.description)). "
                               + "\(left) bytes are left for new apps; use fewer or shorter paths, wildcards such as /items/*, or remove an app first.",
                           field: "paths")
        } catch let error as AssociationFiles.Invalid {
            throw APIError.invalid("paths", "the apple-app-site-association file would be invalid: \(error.description)")
        }
        do {
            _ = try files.assetLinks(apps: others + [app])
        } catch let error as AssociationFiles.Invalid {
            throw APIError.invalid("androidPackage", "the assetlinks.json file would be invalid: \(error.description)")
        }
        try await app.create(on: database)
        context.associationFiles.invalidate()
        return app
    }

    @Sendable func listApps(_ request: Request) async throws -> [AppView] {
        try await RegisteredApp.query(on: request.db).sort(\.$createdAt).all().map(AppView.init)
    }

    @Sendable func getApp(_ request: Request) async throws -> AppView {
        try AppView(try await find(RegisteredApp.self, "appID", "app", request))
    }

    @Sendable func deleteApp(_ request: Request) async throws -> HTTPStatus {
        try await find(RegisteredApp.self, "appID", "app", request).delete(on: request.db)
        context.associationFiles.invalidate()
        return .noContent
    }

    @Sendable func createDevice(_ request: Request) async throws -> Response {
        let input = try request.content.decode(DeviceInput.self, using: JSONDecoder.api)
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else { throw APIError.invalid("name", "give 1 to 100 characters") }
        guard !name.containsControlCharacter else { throw APIError.invalid("name", String.controlCharacterAdvice) }
        let now = context.clock.now()
        let device = Device(name: name, createdAt: now)
        let key: String = try await request.db.transaction { db in
            try await device.create(on: db)
            return try await APIKeyIssuer.create(name: "device \(name)", scope: .device, deviceID: try device.requireID(), on: db, now: now)
        }
        return try await CreatedDevice(device: DeviceView(device), key: key).encodeResponse(status: .created, for: request)
    }

    @Sendable func listDevices(_ request: Request) async throws -> [DeviceView] {
        try await Device.query(on: request.db).sort(\.$createdAt).all().map(DeviceView.init)
    }

    @Sendable func getDevice(_ request: Request) async throws -> DeviceView {
        try DeviceView(try await find(Device.self, "deviceID", "device", request))
    }

    @Sendable func createWebhook(_ request: Request) async throws -> Response {
        let input = try request.content.decode(WebhookInput.self, using: JSONDecoder.api)
        guard !input.url.containsControlCharacter else { throw APIError.invalid("url", String.controlCharacterAdvice) }
        guard let url = URL(string: input.url), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              scheme == "https" || (scheme == "http" && (context.allowsLoopbackWebhooks || WebhookTargetPolicy.isLoopback(host))) else {
            throw APIError.invalid("url", "give an https URL such as https://mdm.example.com/hooks/handover (http only on loopback)")
        }
        if let refusal = context.webhookTargets.checkLiteral(host) {
            throw APIError.invalid("url", "\(refusal.description); give the address of a public https receiver")
        }
        guard !input.events.isEmpty else {
            throw APIError.invalid("events", "subscribe to at least one of \(WebhookOutbox.eventTypes.joined(separator: ", "))")
        }
        for (index, event) in input.events.enumerated() where !WebhookOutbox.eventTypes.contains(event) {
            throw APIError.invalid("events[\(index)]", "'\(event)' is not an event; use \(WebhookOutbox.eventTypes.joined(separator: ", "))")
        }
        if let secret = input.secret { try Self.checkSecret(secret) }
        let secret = input.secret ?? WebhookSignature.generateSecret()
        let hook = Webhook()
        hook.url = input.url
        hook.events = Array(Set(input.events)).sorted()
        guard let sealer = context.sealer else {
            throw APIError(.internalServerError, code: "internal_error", reason: "The server has no encryption key for secrets.")
        }
        hook.secret = try ServerSecrets.seal(secret, sealer: sealer)
        hook.createdAt = context.clock.now()
        try await hook.create(on: request.db)
        return try await CreatedWebhook(webhook: WebhookView(hook), secret: secret).encodeResponse(status: .created, for: request)
    }

    /// A signing secret given by an admin: Standard Webhooks' form.
    static func checkSecret(_ secret: String) throws {
        guard WebhookSignature.isValidSecret(secret) else {
            throw APIError.invalid("secret", "give whsec_ and the base64 of 24 to 64 random bytes (Standard Webhooks), "
                                   + "for example from `echo whsec_$(openssl rand -base64 32)`, or leave it out to have one generated")
        }
    }

    /// `POST /api/v1/webhooks/{id}/rotate-secret`: a new signing secret (given, or generated),
    /// shown once. The old one keeps signing beside it for a day, so receivers can switch over.
    @Sendable func rotateSecret(_ request: Request) async throws -> CreatedWebhook {
        struct RotateInput: Content { var secret: String? }
        let hook = try await find(Webhook.self, "webhookID", "webhook", request)
        let input = request.body.data == nil ? RotateInput() : try request.content.decode(RotateInput.self, using: JSONDecoder.api)
        if let secret = input.secret { try Self.checkSecret(secret) }
        guard let sealer = context.sealer else {
            throw APIError(.internalServerError, code: "internal_error", reason: "The server has no encryption key for secrets.")
        }
        let secret = input.secret ?? WebhookSignature.generateSecret()
        hook.previousSecret = hook.secret
        hook.previousSecretExpiresAt = context.clock.now().addingTimeInterval(WebhookSignature.rotationOverlap)
        hook.secret = try ServerSecrets.seal(secret, sealer: sealer)
        try await hook.save(on: request.db)
        return CreatedWebhook(webhook: try WebhookView(hook), secret: secret)
    }

    @Sendable func listWebhooks(_ request: Request) async throws -> [WebhookView] {
        try await Webhook.query(on: request.db).sort(\.$createdAt).all().map(WebhookView.init)
    }

    @Sendable func listDeliveries(_ request: Request) async throws -> [DeliveryView] {
        let hook = try await find(Webhook.self, "webhookID", "webhook", request)
        return try await WebhookDelivery.query(on: request.db).filter(\.$webhookID == hook.requireID())
            .sort(\.$createdAt, .descending).limit(200).all()
            .map { delivery in
                DeliveryView(id: try delivery.requireID(), event: delivery.event, status: delivery.status, attempts: delivery.attempts,
                             nextAttemptAt: delivery.status == .pending ? delivery.nextAttemptAt : nil,
                             lastStatusCode: delivery.lastStatusCode, lastError: delivery.lastError, createdAt: delivery.createdAt,
                             deliveredAt: delivery.deliveredAt)
            }
    }

    private func find<M: Model>(_ type: M.Type, _ parameter: String, _ what: String, _ request: Request) async throws -> M
    where M.IDValue == UUID {
        guard let id = request.parameters.get(parameter, as: UUID.self) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "'\(request.parameters.get(parameter) ?? "")' is not a \(what) id (a UUID).")
        }
        guard let model = try await M.find(id, on: request.db) else { throw APIError.notFound(what) }
        return model
    }
}
