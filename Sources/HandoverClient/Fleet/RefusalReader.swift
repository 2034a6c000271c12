import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Turns every answer outside 2xx into ``FleetServerError/rejected(status:error:reason:)`` with
/// the server's own `{"error", "reason"}`, so callers of the generated client see one error type
/// and handle only the answers that succeed.
struct RefusalReader: ClientMiddleware {
    /// The most of a refusal's body that is read; the API's error bodies are a few hundred bytes.
    static let bodyLimit = 64 * 1024

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind != .successful else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = (try? await Data(collecting: responseBody, upTo: Self.bodyLimit)) ?? Data() }
        throw FleetServerError.refusal(status: response.status.code, body: data)
    }
}
