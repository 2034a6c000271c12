import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Vapor

/// A device's API key on its dashboard page: its prefix, when it was made and last used, and two
/// forms for an operator at the device's site: revoke it (a lost phone: `docs/operations.md`'s
/// lost-phone procedure) and give the device a new one (shown once). The same rules as
/// `DELETE` and `POST /api/v1/devices/{deviceID}/key` (``KeyRevocation``).
struct DeviceKeyRoutes: RouteCollection {
    let auth: DashboardAuth
    let keys: KeyRevocation
    let keyUses: KeyUses

    func boot(routes: RoutesBuilder) throws {
        let devices = routes.grouped("dashboard", "devices")
        devices.post(":deviceID", "key", "revoke", use: revoke)
        devices.post(":deviceID", "key", "new", use: rekey)
    }

    @Sendable func revoke(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { _, device, actor in
            _ = try await keys.revokeKeys(ofDevice: try device.storedID, actor: actor, now: auth.clock.now(), on: auth.databases.primary)
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())#key")
        }
    }

    @Sendable func rekey(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            let made: (key: String, row: APIKey, replaced: [APIKey])
            do {
                made = try await keys.rekey(device: device, actor: actor, now: auth.clock.now(), on: auth.databases.primary)
            } catch let error as DomainError where error.kind == .conflict {
                throw DashboardError(status: .conflict, message: error.reason)
            }
            let id = try device.storedID.uuidString.lowercased()
            return DashboardLayout.page(DeviceKeysSection.newKeyTitle(device), signedIn: viewer) {
                DeviceKeysSection.newKey(made.key, device: device, deviceID: id, replacedAny: !made.replaced.isEmpty)
            }
        }
    }
}
