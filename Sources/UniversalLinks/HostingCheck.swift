/// A fetched association file as the network returned it, for `HostingCheck` to judge.
///
/// The fetch itself happens outside this module (the `handover aasa check` command does it with
/// redirects refused), so the checks stay pure and testable.
public struct FetchedResponse: Sendable, Equatable {
    /// The URL that was requested.
    public var url: String
    /// The HTTP status code.
    public var statusCode: Int
    /// Response headers; names compare without regard to case.
    public var headers: [(name: String, value: String)]
    /// The body, exactly as received after any content decoding.
    public var body: [UInt8]

    public init(url: String, statusCode: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.url == rhs.url && lhs.statusCode == rhs.statusCode && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name)\u{0}\($0.value)" } == rhs.headers.map { "\($0.name)\u{0}\($0.value)" }
    }

    /// The first header named `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// How iOS's fetch of `https://<host>/.well-known/apple-app-site-association` would fare.
public enum HostingCheck {
    /// The path iOS fetches.
    public static let wellKnownPath = "/.well-known/apple-app-site-association"

    /// Judges the hosting of a fetched file, then (for a 200) validates its body.
    /// - Parameter response: what the fetch of the file returned (status, headers, redirects, body).
    /// - Parameter allowInsecureHTTP: accept `http://` (for loopback development only); the
    ///   finding is then a warning instead of an error.
    public static func check(_ response: FetchedResponse, allowInsecureHTTP: Bool = false) -> ValidationReport {
        var report = ValidationReport()
        let location = "http"
        if let url = SplitURL(response.url) {
            switch url.scheme {
            case "https": break
            case "http" where allowInsecureHTTP:
                report.add(.warning, location, "\(response.url) is served over plain http, accepted only because of --insecure-http; iOS fetches association files over https with a valid certificate only")
            default:
                report.add(.error, location, "\(response.url) is not https; iOS fetches association files only from https:// URLs with a valid certificate")
            }
            if url.path != wellKnownPath && url.path != "/apple-app-site-association" {
                report.add(.warning, location, "the file is fetched from \(url.path); iOS looks only at \(wellKnownPath)")
            } else if url.path == "/apple-app-site-association" {
                report.add(.advice, location, "the root path /apple-app-site-association is only read by old iOS versions; serve the file at \(wellKnownPath)")
            }
        } else {
            report.add(.error, location, "\(response.url) is not an absolute URL; give https://<host>\(wellKnownPath)")
        }
        if (300..<400).contains(response.statusCode) {
            let target = response.header("Location").map { " to \($0)" } ?? ""
            report.add(.error, location, "the server answers \(response.statusCode), a redirect\(target); iOS does not follow redirects for association files, so serve the file itself with status 200 at this URL")
            return report
        }
        guard response.statusCode == 200 else {
            report.add(.error, location, "the server answers status \(response.statusCode); iOS needs status 200 with the file as the body")
            return report
        }
        let contentType = response.header("Content-Type")?.lowercased() ?? ""
        if !contentType.hasPrefix("application/json") {
            let given = contentType.isEmpty ? "no Content-Type" : "Content-Type \"\(contentType)\""
            report.add(.advice, location, "the server sends \(given); iOS does not require it, but application/json is the usual choice")
        }
        return report.appending(AssociationValidator.validate(response.body))
    }
}
