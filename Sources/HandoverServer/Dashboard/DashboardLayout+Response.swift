import HandoverPages
import Vapor

/// The dashboard's pages as HTTP answers: the document with the headers every page carries (never
/// cached, no referrer, no framing, scripts and styles only inline), a redirect, and the page of
/// a ``DashboardError``.
extension DashboardLayout {
    /// A whole page as a response.
    static func page(_ title: String, signedIn viewer: DashboardViewer?, status: HTTPResponseStatus = .ok,
                     @HTMLBuilder body: () -> HTML) -> Response {
        let response = Response(status: status, body: .init(string: document(title, viewer: viewer, body: body)))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        response.headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
        response.headers.replaceOrAdd(name: "Content-Security-Policy",
                                      value: "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:")
        return response
    }

    /// A 303 to `path`.
    static func redirect(_ path: String) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: path)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// The page for a ``DashboardError``.
    static func errorPage(_ error: DashboardError, signedIn viewer: DashboardViewer?) -> Response {
        page(error.status == .forbidden ? "Not allowed" : "Not found", signedIn: viewer, status: error.status) {
            HTML.element("p", ["class": "error"]) { error.message }
            HTML.element("p") { HTML.element("a", ["href": "/dashboard"]) { "Back to the dashboard" } }
        }
    }
}
