import Foundation

/// The callback URL of one attempt of one app in a logout run:
/// `<public URL>/ulc/cb/<run>/<item>/<success|error>?n=<nonce>`.
///
/// The server builds it into each ULC link; the app opens it when it has signed out (or failed
/// to); the launcher receives it as a universal link (association files claim
/// ``associationPattern`` for launchers) and reports it, or a browser opens the server's callback
/// page at the same path. Everything that builds, parses, routes or claims the URL uses this type.
///
/// ```swift
/// let url = CallbackURL(run: runID, item: itemID, outcome: .success, nonce: nonce)
/// let text = url.text(base: URL(string: "https://handover.example.com")!)
/// CallbackURL(text) == url   // true
/// ```
public struct CallbackURL: Sendable, Hashable {
    /// The path components before the run: `/ulc/cb/…`, for route registration.
    public static let pathPrefix = ["ulc", "cb"]
    /// The association-file path pattern that claims every callback URL for a launcher.
    public static let associationPattern = "/ulc/cb/*"
    /// The query item that carries the nonce.
    public static let nonceParameter = "n"

    /// The logout run.
    public var run: UUID
    /// The run's item: one app.
    public var item: UUID
    /// Which callback the app opened.
    public var outcome: CallbackOutcome
    /// The attempt's nonce, which the server checks.
    public var nonce: String

    public init(run: UUID, item: UUID, outcome: CallbackOutcome, nonce: String) {
        self.run = run
        self.item = item
        self.outcome = outcome
        self.nonce = nonce
    }

    /// The URL under `base` (the server's public URL; a trailing slash is ignored). UUIDs are
    /// written in lower case.
    public func text(base: URL) -> String {
        var origin = base.absoluteString
        while origin.hasSuffix("/") { origin.removeLast() }
        let path = (Self.pathPrefix + [run.uuidString.lowercased(), item.uuidString.lowercased(), outcome.rawValue])
            .joined(separator: "/")
        return "\(origin)/\(path)?\(Self.nonceParameter)=\(nonce)"
    }

    /// Reads a callback URL: its path ends in `ulc/cb/<run>/<item>/<success|error>` and its query
    /// has a non-empty `n`. Anything else is nil.
    public init?(_ text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http" else { return nil }
        let parts = components.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 5, Array(parts[(parts.count - 5)...].prefix(2)) == Self.pathPrefix else { return nil }
        let tail = parts.suffix(3).map { $0 }
        guard let run = UUID(uuidString: tail[0]), let item = UUID(uuidString: tail[1]),
              let outcome = CallbackOutcome(rawValue: tail[2]),
              let nonce = Self.nonce(inQuery: components.percentEncodedQuery) else { return nil }
        self.init(run: run, item: item, outcome: outcome, nonce: nonce)
    }

    /// The nonce in a callback URL's query string (the part after `?`, still percent-encoded):
    /// the value of the first `n` item, percent-decoded (as it stands when its percent-encoding is
    /// broken, as Foundation's `URLQueryItem` reads it). Nil when there is none, or it is empty.
    ///
    /// The server's callback page reads the nonce with this, from the raw query, without decoding
    /// the rest of the query.
    ///
    /// - Parameter query: the query string, `n=…&…`; nil when the URL has none.
    public static func nonce(inQuery query: String?) -> String? {
        guard let query else { return nil }
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = item.firstIndex(of: "=") ?? item.endIndex
            let name = item[..<equals]
            guard (name.removingPercentEncoding ?? String(name)) == nonceParameter else { continue }
            guard equals < item.endIndex else { return nil }
            let value = item[item.index(after: equals)...]
            let nonce = value.removingPercentEncoding ?? String(value)
            return nonce.isEmpty ? nil : nonce
        }
        return nil
    }

    /// Reads a callback URL (see ``init(_:)-(String)``).
    public init?(_ url: URL) {
        self.init(url.absoluteString)
    }
}
