import Foundation
import HandoverCore
import HandoverSchema
import NIOHTTP1

/// `GET /api/v1/keys`, `DELETE /api/v1/keys/{keyID}` and a device's key
/// (`POST`/`DELETE /api/v1/devices/{deviceID}/key`): the credentials of people, services and
/// devices, listed without the keys themselves, revoked, and a device's replaced. A revoked key's
/// dashboard sessions and streams end with it (``KeyRevocation``).
extension APIHandler {
    func listKeys(_ input: Operations.ListKeys.Input) async throws -> Operations.ListKeys.Output {
        try await keyUses.flush(on: databases.primary)
        let keys = try await APIKey.list(scope: input.query.scope?.rawValue, device: try input.query.device.map { try id($0, of: "device") },
                                         on: databases.primary)
        return .ok(.init(body: .json(try keys.map(APIKeyView.init))))
    }

    func revokeKey(_ input: Operations.RevokeKey.Input) async throws -> Operations.RevokeKey.Output {
        let keyID = try id(input.path.keyID, of: "key")
        guard let key = try await APIKey.stored(keyID, on: databases.primary) else { throw APIError.notFound("key") }
        let principal = try request.principal
        guard keyID != principal.keyID else {
            throw APIError(.conflict, code: "revoking_own_key",
                           reason: "A key cannot revoke itself: revoke it with another admin key, or 'handover admin create-key' first.")
        }
        if try await keys.revoke(key, actor: principal.actor, now: clock.now(), on: databases.primary), key.deviceID == nil {
            try await request.recordAdminAction(.keyChanged, "revoked \"\(key.name)\" (\(key.scope) key \(key.keyPrefix)…)", now: clock.now(), in: databases)
        }
        return .noContent(.init())
    }

    func rekeyDevice(_ input: Operations.RekeyDevice.Input) async throws -> Operations.RekeyDevice.Output {
        let device = try await find(Device.self, input.path.deviceID, "device")
        let made = try await keys.rekey(device: device, actor: try request.principal.actor, now: clock.now(), on: databases.primary)
        return .created(.init(body: .json(.init(key: made.key, keyInfo: try APIKeyView(made.row),
                                                replaced: try made.replaced.map(APIKeyView.init)))))
    }

    func revokeDeviceKey(_ input: Operations.RevokeDeviceKey.Input) async throws -> Operations.RevokeDeviceKey.Output {
        let device = try await find(Device.self, input.path.deviceID, "device")
        _ = try await keys.revokeKeys(ofDevice: try device.storedID, actor: try request.principal.actor, now: clock.now(), on: databases.primary)
        return .noContent(.init())
    }
}
