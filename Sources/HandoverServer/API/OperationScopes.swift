import HTTPTypes
import HandoverCore
import OpenAPIRuntime
import Vapor

/// Which keys may call each generated operation, checked before the request's body is read: no
/// valid key is a 401, a key whose role is too low a 403 (as the document's descriptions say).
///
/// Each operation's role is declared in `openapi.yaml` as `x-handover-role` (and, for the three
/// a device key may also call, `x-handover-device: true`); ``roles`` is that declaration read
/// once, and `OperationRolesTests` checks the two agree.
struct OperationScopes: ServerMiddleware {
    /// The request whose key is checked.
    let request: Request

    /// The role each operation needs.
    static let roles: [String: AdminRole] = [
        Operations.ListApps.id: .viewer,
        Operations.GetApp.id: .viewer,
        Operations.CreateApp.id: .admin,
        Operations.UpdateApp.id: .admin,
        Operations.DeleteApp.id: .admin,
        Operations.CreateDevice.id: .operator,
        Operations.ListDevices.id: .viewer,
        Operations.GetDevice.id: .viewer,
        Operations.UpdateDevice.id: .operator,
        Operations.ReturnDeviceToService.id: .operator,
        Operations.GetDeviceHistory.id: .viewer,
        Operations.RetireDevice.id: .admin,
        Operations.DeleteDevice.id: .admin,
        Operations.CreateWebhook.id: .admin,
        Operations.ListWebhooks.id: .viewer,
        Operations.ListDeliveries.id: .viewer,
        Operations.RotateWebhookSecret.id: .admin,
        Operations.CreateLogoutRun.id: .operator,
        Operations.GetLogoutRun.id: .viewer,
        Operations.ReportCallback.id: .operator,
        Operations.CreateOperation.id: .operator,
        Operations.GetOperation.id: .viewer,
        Operations.CancelOperation.id: .operator,
        Operations.GetCallbackAllowlist.id: .viewer,
        Operations.SetCallbackAllowlist.id: .admin,
        Operations.ListOutOfBandLocks.id: .viewer,
        Operations.ClearOutOfBandLock.id: .operator,
        Operations.ListEnrolledDevices.id: .viewer,
        Operations.ListKeys.id: .admin,
        Operations.RevokeKey.id: .admin,
        Operations.RekeyDevice.id: .operator,
        Operations.RevokeDeviceKey.id: .operator,
        Operations.ListCustody.id: .viewer,
        Operations.CheckOutDevice.id: .operator,
    ]

    /// The operations a device key may call too: its own runs (the handlers check that the run
    /// or device is its own).
    static let deviceOperations: Set<String> = [
        Operations.CreateLogoutRun.id,
        Operations.GetLogoutRun.id,
        Operations.ReportCallback.id,
        Operations.CheckOutDevice.id,
    ]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        // An operation missing from the table needs admin: a new operation is closed until declared.
        let role = Self.roles[operationID] ?? .admin
        try RequireScope(role: role, device: Self.deviceOperations.contains(operationID)).check(self.request)
        return try await next(request, body, metadata)
    }
}
