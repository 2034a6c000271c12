import HandoverCore
import HandoverProtocol
import HTTPTypes
import NIOCore
import OpenAPIRuntime
import HandoverPages
import Vapor

/// An error the JSON API answers with: `{"error": code, "reason": sentence, "field": name?}`.
struct APIError: AbortError, Sendable {
    var status: HTTPResponseStatus
    var code: String
    var reason: String
    var field: String?
    /// For a 429: the seconds after which to try again, sent as `Retry-After`.
    var retryAfter: Int?

    init(_ status: HTTPResponseStatus, code: String, reason: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.reason = reason
        self.field = field
    }

    /// A 422 that names the field at fault.
    static func invalid(_ field: String, _ reason: String) -> APIError {
        APIError(.unprocessableEntity, code: "invalid_field", reason: "\(field): \(reason)", field: field)
    }

    /// A 429 with `Retry-After`.
    static func tooManyRequests(retryAfter seconds: Int) -> APIError {
        var error = APIError(.tooManyRequests, code: "rate_limited",
                             reason: "Too many requests from this address; try again in \(seconds) seconds.")
        error.retryAfter = seconds
        return error
    }

    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", reason: "No \(what) with that id.")
    }

    /// The domain's refusal, with the status of its kind.
    init(_ error: DomainError) {
        let status: HTTPResponseStatus = switch error.kind {
        case .invalidField: .unprocessableEntity
        case .notFound: .notFound
        case .conflict: .conflict
        case .badRequest: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .gone: .gone
        case .rateLimited: .tooManyRequests
        case .unavailable: .serviceUnavailable
        default: .internalServerError  // storage, and a kind added without a status here
        }
        self.init(status, code: error.code, reason: error.reason, field: error.field)
        retryAfter = error.retryAfter
    }
}

extension APIError {
    /// A refusal as a page or a caller shows it: an `APIError` as it is, a ``HandoverCore/DomainError``
    /// as the `APIError` it maps to; nil for any other error (a failure, not a refusal).
    static func refusal(_ error: any Error) -> APIError? {
        if let refusal = error as? APIError { return refusal }
        return (error as? DomainError).map(APIError.init)
    }
}

/// Turns every error into the API's JSON form, so clients never see an HTML error page.
///
/// A plain (future-based) middleware rather than an `AsyncMiddleware`: it runs on the event loop,
/// so a route that answers there (the association files) never hops to a task for it.
struct APIErrorMiddleware: Middleware {
    typealias Body = APIErrorBody

    /// How long a rate-limited answer (429) waits before it is sent: a client over its limit gets
    /// one answer per connection per this long, at no cost to the server but a waiting socket
    /// (the connection cap bounds those), so a flood from one client cannot crowd out others.
    var rateLimitedDelay: TimeAmount = .zero

    func respond(to request: Request, chainingTo next: Responder) -> EventLoopFuture<Response> {
        let delay = rateLimitedDelay
        return next.respond(to: request).flatMapError { error in
            let response: Response
            do { response = try Self.response(for: error, request) } catch { return request.eventLoop.makeFailedFuture(error) }
            guard delay > .zero, (Self.unwrapped(error) as? APIError)?.retryAfter != nil else { return request.eventLoop.makeSucceededFuture(response) }
            return request.eventLoop.scheduleTask(in: delay) { response }.futureResult
        }
    }

    static func response(for error: any Error, _ request: Request) throws -> Response {
        let status: HTTPResponseStatus
        let body: Body
        switch Self.unwrapped(error) {
        case let server as ServerError:
            // The generated code refused the request before any handler ran (a missing body, a
            // content type the operation does not take, a path or query it cannot read).
            status = HTTPResponseStatus(statusCode: Int(server.httpStatus.code))
            let code = status.code == 415 ? "unsupported_media_type" : status.code < 500 ? "invalid_request" : "internal_error"
            if status.code >= 500 { request.logger.report(error: server) }
            body = Body(error: code, reason: status.code < 500 ? server.causeDescription + "." : "The server failed to handle this request; see its log.")
        case let api as APIError:
            status = api.status
            body = Body(error: api.code, reason: api.reason, field: api.field)
        case let decoding as DecodingError:
            status = .badRequest
            body = Body(error: "invalid_json", reason: Self.describe(decoding), field: Self.field(decoding))
        case let abort as AbortError:
            status = abort.status
            body = Body(error: abort.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_"),
                        reason: abort.reason, field: nil)
        default:
            request.logger.report(error: error)
            status = .internalServerError
            body = Body(error: "internal_error", reason: "The server failed to handle this request; see its log.", field: nil)
        }
        // A browser that lands on a dashboard address that does not exist gets a page, not JSON.
        if status == .notFound, request.url.path == "/dashboard" || request.url.path.hasPrefix("/dashboard/") {
            return DashboardNotFoundPage.response(path: request.url.path, reason: body.reason)
        }
        let response = Response(status: status)
        try response.content.encode(body, using: JSONEncoder.api)
        if let wait = (Self.unwrapped(error) as? APIError)?.retryAfter {
            response.headers.replaceOrAdd(name: .retryAfter, value: String(wait))
            // A client over its limit pays a new connection for its next try, which slows a
            // flood from one client far more than it slows the server.
            response.headers.replaceOrAdd(name: .connection, value: "close")
        }
        return response
    }

    /// The error a generated handler threw (the generated code wraps it in a `ServerError`), and
    /// a `DomainError` as the API error it maps to.
    static func unwrapped(_ error: any Error) -> any Error {
        var error = error
        if let server = error as? ServerError, server.underlyingError is APIError || server.underlyingError is DomainError
            || server.underlyingError is DecodingError || server.underlyingError is AbortError || DatabaseOutage.matches(server.underlyingError) {
            error = server.underlyingError
        }
        // The database out of reach for now (a restart, a failover): a 503 the SDK waits out.
        if !(error is DomainError), DatabaseOutage.matches(error) { return APIError(DomainError.databaseUnavailable) }
        return (error as? DomainError).map(APIError.init) ?? error
    }

    private static func field(_ error: DecodingError) -> String? {
        switch error {
        case .keyNotFound(let key, let context): return (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? nil : path
        @unknown default: return nil
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "'\(key.stringValue)' is required."
        case .typeMismatch(let type, let context):
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' must be \(Self.name(of: type))."
        case .valueNotFound(let type, let context):
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' must be \(Self.name(of: type)), not null."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON." : "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        @unknown default: return "The body does not match the expected shape."
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
        case is Bool.Type: return "true or false"
        case is [String].Type: return "an array of strings"
        default: return "\(type)"
        }
    }
}
