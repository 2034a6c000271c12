import Foundation
import NIOConcurrencyHelpers
import NIOFoundationCompat
import Vapor

/// Refuses, before the route runs, a request outside the bounds `openapi.yaml` declares
/// (``OpenAPIDocument/bounds``): a query or path parameter of any operation, and a plain route's
/// JSON body (a generated operation's body is checked after its role, by ``DeclaredBodyBounds``).
/// 400 with the API's error body naming the field, what was wrong and what is accepted:
/// `GET /api/v1/custody?page=9223372036854775807` is `out_of_bounds` ("page: 9223372036854775807
/// is above 100000; accepted: a whole number from 1 to 100000."), where it used to crash the
/// server; an integer parameter that is not a whole number is `invalid_parameter`.
///
/// Each route's bounds are found once (its key is built from its path, under the route's lock)
/// and remembered by the route's identity: a request whose operation declares no bound (every
/// callback, every run start) then costs one lookup in that small table. A plain (future-based)
/// middleware, as ``QueryParameterGuard`` is.
struct DeclaredBoundsGuard: Middleware {
    /// Each route's bounds (nil: none), by the route's identity; routes live as long as the application.
    private let known = NIOLockedValueBox<[ObjectIdentifier: OperationBounds?]>([:])

    func respond(to request: Request, chainingTo next: Responder) -> EventLoopFuture<Response> {
        if let refusal = refusal(of: request) {
            return request.eventLoop.makeFailedFuture(refusal.apiError)
        }
        return next.respond(to: request)
    }

    /// The bounds of `route`'s operation, found once.
    private func bounds(of route: Route) -> OperationBounds? {
        let id = ObjectIdentifier(route)
        if let found = known.withLockedValue({ $0[id] }) { return found }
        let bounds = OpenAPIDocument.bounds[route.operationKey]
        known.withLockedValue { $0[id] = Optional(bounds) }
        return bounds
    }

    /// The first value of `request` outside its operation's bounds, or nil.
    func refusal(of request: Request) -> ValueBounds.Refusal? {
        guard let route = request.route, let operation = bounds(of: route) else { return nil }
        let query = request.url.query.flatMap { $0.isEmpty ? nil : $0 }
        let body = request.body.data.flatMap { $0.readableBytes > 0 ? $0 : nil }
        for parameter in operation.parameters {
            switch parameter.location {
            case .path:
                guard let value = request.parameters.get(parameter.name) else { continue }
                if let refusal = parameter.bounds.refusal(ofParameter: value, field: parameter.name) { return refusal }
            case .query:
                guard let query else { continue }
                for value in Self.values(of: parameter.name, in: query) {
                    if let refusal = parameter.bounds.refusal(ofParameter: value, field: parameter.name) { return refusal }
                }
            }
        }
        if !operation.generated, operation.body != nil, let body, request.headers.contentType == .json {
            return operation.refusal(inBody: Data(buffer: body, byteTransferStrategy: .noCopy))
        }
        return nil
    }

    /// Every value of the query parameter `name`, decoded as a form decodes it (`+` is a space).
    static func values(of name: String, in query: String) -> [String] {
        var values: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard decoded(parts[0]) == name else { continue }
            values.append(parts.count > 1 ? decoded(parts[1]) : "")
        }
        return values
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
