import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends an API key (`hov_…`) as `Authorization: Bearer …` on every call of the generated client.
struct BearerKey: ClientMiddleware {
    let key: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}
