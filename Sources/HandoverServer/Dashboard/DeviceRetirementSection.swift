import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
import Vapor

/// Retire and delete on a device's dashboard page, for an admin at the device's site: the same
/// rules and words as `POST /api/v1/devices/{id}/retire` and `DELETE /api/v1/devices/{id}`
/// (``DeviceRetirement``). A refusal comes back on the device's page, in this section, with the
/// field and the reason.
extension DeviceLifeCycleRoutes {
    @Sendable func retire(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request, needs: DeviceRetirementForm.role) { viewer, device, actor in
            let note = (try? request.content.get(String.self, at: "note")) ?? ""
            let retired: (device: Device, revokedKeys: Int)
            do {
                retired = try await DeviceRetirement(keys: keys).retire(try device.storedID, note: note, actor: actor, on: auth.databases.primary,
                                                                        now: clock.now())
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: nil, retirementError: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            try await auth.recordAdminAction(.deviceChanged, DeviceRetirement.retiredDetail(retired.device, note: note), viewer: viewer,
                                                now: clock.now())
            if let run = retired.device.lastRunID { await notifier.runChanged(run, on: auth.databases.primary) }
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())")
        }
    }

    @Sendable func delete(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request, needs: DeviceRetirementForm.role) { viewer, device, actor in
            let deleted: Device
            do {
                deleted = try await DeviceRetirement(keys: keys).delete(try device.storedID, actor: actor, on: auth.databases.primary, now: clock.now())
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: nil, retirementError: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            try await auth.recordAdminAction(.deviceChanged, DeviceRetirement.deletedDetail(deleted), viewer: viewer, now: clock.now())
            return DashboardLayout.page("Device deleted", signedIn: viewer) {
                DeviceRetirementForm.deleted(deleted)
            }
        }
    }
}
