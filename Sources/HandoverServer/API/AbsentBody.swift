import HTTPTypes
import OpenAPIRuntime

/// Hands the generated code no body when the request has none, so an optional request body
/// (starting a run, rotating a secret) may be left out instead of failing to parse as JSON.
///
/// Vapor's transport gives every request a body stream, even an empty one; by HTTP/1.1 a request
/// has a body only when it has `Content-Length` greater than zero or `Transfer-Encoding`.
struct AbsentBody: ServerMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        let hasBody = request.headerFields[.transferEncoding] != nil
            || (request.headerFields[.contentLength].flatMap { Int($0) } ?? 0) > 0
        return try await next(request, hasBody ? body : nil, metadata)
    }
}
