import HTTPTypes
import OpenAPIRuntime
import Vapor

/// Which API-key scopes may call each generated operation, checked before the request's body is
/// read: no valid key is a 401, a key of another scope a 403 (as the document's descriptions say).
struct OperationScopes: ServerMiddleware {
    /// The operations a device key may call besides an admin key: its own runs (the handlers
    /// check that the run or device is its own). Every other operation is admin only.
    static let deviceOperations: Set<String> = [
        Operations.CreateLogoutRun.id,
        Operations.GetLogoutRun.id,
        Operations.ReportCallback.id,
    ]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        let allowed: Set<APIKeyScope> = Self.deviceOperations.contains(operationID) ? [.admin, .device] : [.admin]
        try RequireScope(scopes: allowed).check(try CurrentRequest.request)
        return try await next(request, body, metadata)
    }
}
