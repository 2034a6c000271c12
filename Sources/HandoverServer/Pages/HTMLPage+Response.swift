import HandoverPages
import Vapor

extension HTMLPage {
    /// The page as an HTML response with `status`, never cached, sending no referrer: how the
    /// callback, sign-in and "open on your phone" pages are answered.
    func response(_ status: HTTPResponseStatus) -> Response {
        let response = Response(status: status, body: .init(string: html))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
