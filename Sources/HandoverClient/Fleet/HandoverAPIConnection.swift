import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An authenticated JSON connection to a Handover server: one origin, one API key.
///
/// ``FleetServer`` uses it with a device key; tools that manage the registry use it with an admin
/// key. Every failure is a ``FleetServerError`` that carries the server's own `{"error","reason"}`
/// when it answered.
public struct HandoverAPIConnection: Sendable {
    /// A successful answer: where it came from and its body.
    public struct Reply: Sendable {
        public var url: String
        public var body: Data
    }

    /// The server's origin, such as `https://handover.example.com`.
    public let baseURL: URL
    private let key: String
    private let session: URLSession
    private let retry: BusyServerRetry?

    /// - Parameters:
    ///   - baseURL: the server's origin.
    ///   - key: an API key (`hov_…`), sent as a bearer token.
    ///   - session: the URL session requests go through.
    ///   - busyServer: how long to wait before sending a request again when the server is busy
    ///     (`503`, or `429` with `Retry-After`), as ``FleetServer`` does; `nil` reports a busy
    ///     server at once. A request that got no answer is sent again only when it is a `GET` or
    ///     `HEAD`.
    ///   - clock: the clock those waits are slept on (a `TestClock` in tests).
    public init(baseURL: URL, key: String, session: URLSession = .shared,
                busyServer: BusyServerPolicy? = BusyServerPolicy(), clock: any Clock<Duration> = ContinuousClock()) {
        self.baseURL = baseURL
        self.key = key
        self.session = session
        self.retry = busyServer.map { BusyServerRetry(policy: $0, clock: clock) }
    }

    /// Sends a request with an optional JSON body; a status outside 2xx is thrown as `.rejected`
    /// (after the waits of the busy-server policy, when the server was busy).
    public func send(_ method: String, _ path: String, body: Data? = nil) async throws(FleetServerError) -> Reply {
        let text = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: text + path) else {
            throw .unreachable(url: text + path, detail: "the base URL and path do not make a URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            let session = self.session, sent = request
            let attempt = { try await session.data(for: sent) }
            if let retry {
                let idempotent = HTTPRequest.Method(method.uppercased()).map { BusyServerRetry.isIdempotent(method: $0, operationID: nil) } ?? false
                (data, response) = try await retry.exchange(idempotent: idempotent, operationID: nil, send: attempt) { answer in
                    let http = answer.1 as? HTTPURLResponse
                    return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Retry-After"))
                }
            } else {
                (data, response) = try await attempt()
            }
        } catch {
            throw .unreachable(url: url.absoluteString, detail: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw .unreadable(url: url.absoluteString, detail: "the answer is not HTTP")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw .refusal(status: http.statusCode, body: data)
        }
        return Reply(url: url.absoluteString, body: data)
    }

    /// Decodes a reply's JSON body (ISO 8601 dates).
    public func decode<T: Decodable>(_ type: T.Type, _ reply: Reply) throws(FleetServerError) -> T {
        do {
            return try FleetRun.decoder.decode(type, from: reply.body)
        } catch {
            throw .unreadable(url: reply.url, detail: "\(error)")
        }
    }
}
