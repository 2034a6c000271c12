import HandoverPages
import Vapor

/// The page a browser gets for a dashboard address that leads nowhere (a mistyped path, a device
/// or run that was deleted, or one outside the person's sites): what happened and where to go on,
/// in HTML with status 404, where the JSON API answers its error body.
enum DashboardNotFoundPage {
    static func response(path: String, reason: String) -> Response {
        let page = NotFoundPage.page(path: path, reason: reason)
        let response = Response(status: .notFound, body: .init(string: page.html))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }
}
