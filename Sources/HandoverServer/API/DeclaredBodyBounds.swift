import Foundation
import HTTPTypes
import NIOFoundationCompat
import OpenAPIRuntime
import Vapor

/// Refuses a generated operation's JSON body outside the bounds `openapi.yaml` declares on it
/// (``OpenAPIDocument/generatedBodyBounds``), after ``OperationScopes`` has checked the key's role
/// (the role comes before the body is read, as the document says), with the API's 400 naming
/// the field. swift-openapi-generator's code checks a body's types but not its bounds.
///
/// The body is already in memory (the transport collects it whole), so it is read from the Vapor
/// request, not streamed again; an operation whose body declares no bound (a callback, a run
/// start) costs one dictionary lookup, and a body too short to break its bounds (a badge
/// check-out's) one comparison more.
struct DeclaredBodyBounds: ServerMiddleware {
    /// The request whose body is read.
    let request: Request

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        if let operation = OpenAPIDocument.generatedBodyBounds[operationID], body != nil,
           case let vapor = self.request, vapor.headers.contentType == .json,
           let bytes = vapor.body.data, bytes.readableBytes >= operation.shortestBreakingBody,
           let refusal = operation.refusal(inBody: Data(buffer: bytes, byteTransferStrategy: .noCopy)) {
            throw refusal.apiError
        }
        return try await next(request, body, metadata)
    }
}
