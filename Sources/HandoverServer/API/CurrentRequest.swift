import Vapor

/// The Vapor request a generated handler is answering.
///
/// The handlers of ``APIHandler`` get typed input from the generated code, not the `Request`; this
/// task-local carries the request (its database, its authenticated key, its logger, its
/// application) from ``CurrentRequest/Binding``, the middleware in front of the generated
/// routes, to the handler that runs below it.
enum CurrentRequest {
    @TaskLocal static var value: Request?

    /// The request, inside a generated handler.
    static var request: Request {
        get throws {
            guard let value else {
                throw APIError(.internalServerError, code: "internal_error", reason: "A generated handler ran outside a request.")
            }
            return value
        }
    }

    /// Binds each request to ``CurrentRequest/value`` while the routes below answer it.
    struct Binding: AsyncMiddleware {
        func respond(to request: Request, chainingTo next: AsyncResponder) async throws -> Response {
            try await CurrentRequest.$value.withValue(request) { try await next.respond(to: request) }
        }
    }
}
