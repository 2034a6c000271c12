import Foundation
import HTTPTypes
import NIOHTTPTypesHTTP1
@_spi(Generated) import OpenAPIRuntime
import Vapor

/// Serves the generated JSON API on Vapor routes, each request with a handler of its own.
///
/// swift-openapi-generator's `registerHandlers(on:)` binds every operation to one handler for
/// the life of the server, so the handler could learn of its request only from a task-local.
/// Instead, for each operation of `UniversalServer.operations` (the generator's registrations as
/// values, appended to `Generated/Server.swift` by `scripts/openapi/server-operations.py`), one
/// route builds an ``APIHandler`` with the request (its caller and its database) and the
/// per-request middlewares, then runs the generated function that decodes the input, calls the
/// handler and encodes the output. The request and response are converted with swift-nio-extras'
/// `NIOHTTPTypesHTTP1`, as swift-openapi-vapor's transport does: the method, the path with its
/// query, the headers (cookies split), the body as it streams, and the path's parameters.
struct APIRoutes {
    let services: APIServices

    /// Registers every operation on `routes`.
    func register(on routes: RoutesBuilder) {
        for operation in UniversalServer<APIHandler>.operations {
            let components = Self.components(operation.path)
            let parameters = components.compactMap { component -> String? in
                if case .parameter(let name) = component { return name }
                return nil
            }
            routes.on(HTTPMethod(operation.method), components, body: .stream) { [services] request in
                let server = UniversalServer(handler: services.handler(for: request), configuration: APIServices.configuration,
                                             middlewares: [OperationScopes(request: request), AbsentBody(), DeclaredBodyBounds(request: request)])
                let (head, body) = try await operation.serve(server, try Self.head(of: request), Self.body(of: request),
                                                             try Self.metadata(of: request, parameters: parameters))
                return try await Self.response(head, body)
            }
        }
    }

    /// `/api/v1/apps/{appID}` as Vapor's path: constants, and a parameter for each `{name}`.
    static func components(_ template: String) -> [PathComponent] {
        template.split(separator: "/").map { part in
            part.first == "{" && part.last == "}" ? .parameter(String(part.dropFirst().dropLast())) : .constant(String(part))
        }
    }

    /// The request's method, scheme, authority, path with its query, and headers.
    static func head(of request: Request) throws -> HTTPTypes.HTTPRequest {
        HTTPTypes.HTTPRequest(method: try HTTPTypes.HTTPRequest.Method(request.method), scheme: request.url.scheme, authority: request.url.host,
                              path: request.url.path + (request.url.query.map { "?\($0)" } ?? ""),
                              headerFields: HTTPFields(request.headers, splitCookie: true))
    }

    /// The request's body as it streams in, read once, with its length when declared.
    static func body(of request: Request) -> HTTPBody {
        let length = request.headers.first(name: .contentLength).flatMap { Int64($0) }
        return HTTPBody(request.body.map(\.readableBytesView), length: length.map { .known($0) } ?? .unknown, iterationBehavior: .single)
    }

    /// The values of the path's parameters, by name.
    static func metadata(of request: Request, parameters: [String]) throws -> ServerRequestMetadata {
        var values: [String: Substring] = [:]
        for name in parameters {
            guard let value = request.parameters.get(name) else {
                throw APIError(.badRequest, code: "invalid_request", reason: "The path has no '\(name)'.")
            }
            values[name] = Substring(value)
        }
        return ServerRequestMetadata(pathParameters: values)
    }

    /// The generated response as Vapor's: its status, headers, and body (the API's bodies are
    /// JSON documents written whole, so the body is collected and sent with its length).
    static func response(_ head: HTTPTypes.HTTPResponse, _ body: HTTPBody?) async throws -> Response {
        var headers = HTTPHeaders(head.headerFields)
        headers.remove(name: .contentLength)
        guard let body else { return Response(status: .init(statusCode: head.status.code), headers: headers) }
        let bytes = try await ArraySlice<UInt8>(collecting: body, upTo: .max)
        return Response(status: .init(statusCode: head.status.code), headers: headers, body: .init(buffer: ByteBuffer(bytes: bytes)))
    }
}
