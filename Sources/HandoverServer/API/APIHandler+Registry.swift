import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Vapor

/// `/api/v1/apps`, `/api/v1/devices` and `/api/v1/webhooks`: the registry, admin only.
extension APIHandler {
    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        let body = switch input.body { case .json(let body): body }
        let app = try await appRegistrar().create(body, on: databases.primary)
        try await request.recordAdminAction(.appChanged, "registered \(app.name)", now: clock.now(), in: databases)
        return .created(.init(body: .json(try AppView(app))))
    }

    func listApps(_ input: Operations.ListApps.Input) async throws -> Operations.ListApps.Output {
        let apps = try await RegisteredApp.allByRegistration(on: databases.primary)
        return .ok(.init(body: .json(try apps.map(AppView.init))))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        .ok(.init(body: .json(try AppView(try await find(RegisteredApp.self, input.path.appID, "app")))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        let change = switch input.body { case .json(let body): body }
        let app = try await find(RegisteredApp.self, input.path.appID, "app")
        let domainChange = AppRegistrar.Change(logoutMethod: change.logoutMethod.flatMap { LogoutMethod(rawValue: $0.rawValue) },
                                               logoutAction: change.logoutAction, deadlineSeconds: change.deadlineSeconds,
                                               maxReissues: change.maxReissues, backchannelLogoutURI: change.backchannelLogoutURI,
                                               backchannelLogoutSessionRequired: change.backchannelLogoutSessionRequired)
        try await appRegistrar().update(app, with: domainChange, on: databases.primary)
        try await request.recordAdminAction(.appChanged, "changed \(app.name)'s logout settings", now: clock.now(), in: databases)
        return .ok(.init(body: .json(try AppView(app))))
    }

    func deleteApp(_ input: Operations.DeleteApp.Input) async throws -> Operations.DeleteApp.Output {
        let app = try await find(RegisteredApp.self, input.path.appID, "app")
        try await app.remove(on: databases.primary)
        associationFiles.invalidate()
        try await request.recordAdminAction(.appChanged, "removed \(app.name)", now: clock.now(), in: databases)
        return .noContent(.init())
    }

    func createDevice(_ input: Operations.CreateDevice.Input) async throws -> Operations.CreateDevice.Output {
        let body = switch input.body { case .json(let body): body }
        let fields = DeviceRegistrar.Fields(name: body.name, serialNumber: body.serialNumber, mdmDeviceID: body.mdmDeviceID, site: body.site)
        let (device, key) = try await DeviceRegistrar(now: { clock.now() }).register(fields, on: databases.primary)
        try await request.recordAdminAction(.deviceChanged, "added \(device.name)\(device.site.map { " at \($0)" } ?? "")", now: clock.now(), in: databases)
        return .created(.init(body: .json(.init(device: try DeviceView(device), key: key))))
    }

    func updateDevice(_ input: Operations.UpdateDevice.Input) async throws -> Operations.UpdateDevice.Output {
        let body = switch input.body { case .json(let body): body }
        let device = try await find(Device.self, input.path.deviceID, "device")
        let fields = DeviceRegistrar.Fields(name: body.name, serialNumber: body.serialNumber, mdmDeviceID: body.mdmDeviceID, site: body.site)
        let updated = try await DeviceRegistrar(now: { clock.now() }).update(device, with: fields, on: databases.primary)
        try await request.recordAdminAction(.deviceChanged, "changed \(updated.name)\(updated.site.map { " (site \($0))" } ?? "")",
                                                           now: clock.now(), in: databases)
        return .ok(.init(body: .json(try DeviceView(updated))))
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        var wanted: DeviceStatus?
        if let status = input.query.status {
            guard let known = DeviceStatus(rawValue: status.rawValue) else { throw APIError.invalid("status", "'\(status.rawValue)' is not a status") }
            wanted = known
        }
        var site: SiteName?
        if let text = input.query.site {
            do throws(SiteNameError) { site = try SiteName(text) } catch {
                throw APIError(.badRequest, code: "invalid_parameter", reason: "site: \(error)", field: "site")
            }
        }
        let devices = try await Device.list(status: wanted, site: site, on: databases.reads)
        return .ok(.init(body: .json(try devices.map(DeviceView.init))))
    }

    func getDevice(_ input: Operations.GetDevice.Input) async throws -> Operations.GetDevice.Output {
        .ok(.init(body: .json(try DeviceView(try await find(Device.self, input.path.deviceID, "device")))))
    }

    func returnDeviceToService(_ input: Operations.ReturnDeviceToService.Input) async throws -> Operations.ReturnDeviceToService.Output {
        let deviceID = try id(input.path.deviceID, of: "device")
        let body = switch input.body { case .json(let body): body }
        let device = try await DeviceLifeCycle.returnToService(deviceID, note: body.note, actor: try request.principal.actor,
                                                               on: databases.primary, now: clock.now())
        // Open dashboards update (they follow every run; the device's last one stands for it).
        if let run = device.lastRunID { await notifier.runChanged(run, on: databases.primary) }
        return .ok(.init(body: .json(try DeviceView(device))))
    }

    /// Retires a device for good (``DeviceRetirement``); the admin history records it too.
    func retireDevice(_ input: Operations.RetireDevice.Input) async throws -> Operations.RetireDevice.Output {
        let deviceID = try id(input.path.deviceID, of: "device")
        let body = switch input.body { case .json(let body): body }
        let retired = try await DeviceRetirement(keys: keys).retire(deviceID, note: body.note, actor: try request.principal.actor,
                                                                    on: databases.primary, now: clock.now())
        try await request.recordAdminAction(.deviceChanged, DeviceRetirement.retiredDetail(retired.device, note: body.note), now: clock.now(), in: databases)
        if let run = retired.device.lastRunID { await notifier.runChanged(run, on: databases.primary) }
        return .ok(.init(body: .json(try DeviceView(retired.device))))
    }

    /// Deletes a device no hand-over names (``DeviceRetirement``); the admin history records it.
    func deleteDevice(_ input: Operations.DeleteDevice.Input) async throws -> Operations.DeleteDevice.Output {
        let deviceID = try id(input.path.deviceID, of: "device")
        let deleted = try await DeviceRetirement(keys: keys).delete(deviceID, actor: try request.principal.actor, on: databases.primary, now: clock.now())
        try await request.recordAdminAction(.deviceChanged, DeviceRetirement.deletedDetail(deleted), now: clock.now(), in: databases)
        return .noContent(.init())
    }

    func getDeviceHistory(_ input: Operations.GetDeviceHistory.Input) async throws -> Operations.GetDeviceHistory.Output {
        let device = try await find(Device.self, input.path.deviceID, "device")
        return .ok(.init(body: .json(try await DeviceLifeCycle.history(of: try device.storedID, on: databases.primary).map(DeviceHistoryView.init))))
    }

    func createWebhook(_ input: Operations.CreateWebhook.Input) async throws -> Operations.CreateWebhook.Output {
        let body = switch input.body { case .json(let body): body }
        let (hook, secret) = try await webhookRegistrar.create(url: body.url, events: body.events, secret: body.secret, on: databases.primary)
        try await request.recordAdminAction(.webhookChanged, "added \(hook.url)", now: clock.now(), in: databases)
        return .created(.init(body: .json(.init(webhook: try WebhookView(hook), secret: secret))))
    }

    func listWebhooks(_ input: Operations.ListWebhooks.Input) async throws -> Operations.ListWebhooks.Output {
        let hooks = try await Webhook.allByRegistration(on: databases.primary)
        return .ok(.init(body: .json(try hooks.map(WebhookView.init))))
    }

    func listDeliveries(_ input: Operations.ListDeliveries.Input) async throws -> Operations.ListDeliveries.Output {
        let hook = try await find(Webhook.self, input.path.webhookID, "webhook")
        let deliveries = try await WebhookDelivery.newest(200, ofWebhook: try hook.storedID, on: databases.primary)
        return .ok(.init(body: .json(try deliveries.map(DeliveryView.init))))
    }

    /// A new signing secret (given, or generated), shown once. The old one keeps signing beside
    /// it for a day, so receivers can switch over.
    func rotateWebhookSecret(_ input: Operations.RotateWebhookSecret.Input) async throws -> Operations.RotateWebhookSecret.Output {
        let hook = try await find(Webhook.self, input.path.webhookID, "webhook")
        let given: String? = switch input.body {
        case .json(let body): body.secret
        case nil: nil
        }
        let secret = try await webhookRegistrar.rotateSecret(of: hook, to: given, on: databases.primary)
        try await request.recordAdminAction(.webhookChanged, "rotated the secret of \(hook.url)", now: clock.now(), in: databases)
        return .ok(.init(body: .json(.init(webhook: try WebhookView(hook), secret: secret))))
    }

    func find(_ type: Device.Type, _ text: String, _ what: String) async throws -> Device {
        guard let device = try await Device.stored(try id(text, of: what), on: databases.primary) else { throw APIError.notFound(what) }
        return device
    }

    func find(_ type: RegisteredApp.Type, _ text: String, _ what: String) async throws -> RegisteredApp {
        guard let app = try await RegisteredApp.stored(try id(text, of: what), on: databases.primary) else { throw APIError.notFound(what) }
        return app
    }

    func find(_ type: Webhook.Type, _ text: String, _ what: String) async throws -> Webhook {
        guard let hook = try await Webhook.stored(try id(text, of: what), on: databases.primary) else { throw APIError.notFound(what) }
        return hook
    }
}
