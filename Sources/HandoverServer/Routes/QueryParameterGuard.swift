import Vapor

/// Refuses an API request whose query names a parameter its operation does not declare in
/// `openapi.yaml` (``OpenAPIDocument/queryParameters``): `GET /api/v1/devices?state=overdue`
/// answers 400 `unknown_query_parameter`, naming the parameter and those the operation takes,
/// where it used to list every device as if no filter had been asked for.
///
/// Only `/api/v1` routes with a query are looked at: a request without one (every callback, every
/// run start) costs a check of its query's presence. A plain (future-based) middleware, as
/// ``APIErrorMiddleware`` is, so no request hops to a task for it.
struct QueryParameterGuard: Middleware {
    func respond(to request: Request, chainingTo next: Responder) -> EventLoopFuture<Response> {
        do {
            try check(request)
        } catch {
            return request.eventLoop.makeFailedFuture(error)
        }
        return next.respond(to: request)
    }

    /// Throws the refusal for the first parameter the request's operation does not declare.
    func check(_ request: Request) throws {
        guard let query = request.url.query, !query.isEmpty, let route = request.route,
              request.url.path.hasPrefix("/api/v1/") else { return }
        let operation = route.operationKey
        guard let accepted = OpenAPIDocument.queryParameters[operation] else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let raw = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let name = raw.removingPercentEncoding ?? raw
            guard !accepted.contains(name) else { continue }
            let takes = accepted.isEmpty ? "it takes no query parameters" : "it takes \(accepted.sorted().joined(separator: ", "))"
            throw APIError(.badRequest, code: "unknown_query_parameter",
                           reason: "'\(String(name.prefix(100)))' is not a query parameter of \(operation); \(takes).", field: String(name.prefix(100)))
        }
    }
}
