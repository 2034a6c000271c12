import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import OutboundHTTP

/// The customer's own identity lookup for badges (`HANDOVER_BADGE_LOOKUP_URL`), as Imprivata
/// customers run one: `GET <url>?id=<badge>` answers `{"user": "<login>"}` (issue 40), the login
/// an email address (``EmailAddress``).
///
/// The badge goes to the lookup and nowhere else: it is never stored or logged (a custody keeps
/// a keyed digest of it). A lookup that is down or slow is refused within ``timeout``.
package struct BadgeLookup: Sendable {
    package let url: URL
    package let http: HTTPClient
    /// How long a lookup may take, answer included: 3 seconds.
    package var timeout: Duration = .seconds(3)

    package init(url: URL, http: HTTPClient, timeout: Duration = .seconds(3)) {
        self.url = url
        self.http = http
        self.timeout = timeout
    }

    /// Why a badge found nobody.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The lookup answered that it knows no such badge (404, or no `user`).
        case unknownBadge
        /// The lookup could not be asked, failed, or took longer than the timeout.
        case unavailable(String)

        package var description: String {
            switch self {
            case .unknownBadge: "the badge lookup knows no person with this badge"
            case .unavailable(let why): "the badge lookup did not answer in time or failed (\(why)); sign in on the device instead"
            }
        }
    }

    /// The login of the person the badge belongs to.
    package func login(for badge: String) async throws(Failure) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw .unavailable("its URL is not usable") }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "id", value: badge)]
        guard let target = components.url?.absoluteString else { throw .unavailable("its URL is not usable") }
        struct Answer: Decodable { var user: String? }
        var request = HTTPClientRequest(url: target)
        request.headers.add(name: "Accept", value: "application/json")
        // The whole exchange, answer included, is bounded by the timeout.
        let milliseconds = Int64(timeout.components.seconds) * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let reply: OutboundExchange.Reply
        do {
            reply = try await OutboundExchange(client: http, timeout: .milliseconds(milliseconds), replyLimit: 8192).send(request)
        } catch {
            throw .unavailable(error.description)
        }
        let status = reply.status
        let body = reply.body
        if status == 404 { throw .unknownBadge }
        guard status == 200 else { throw .unavailable("HTTP \(status)") }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(buffer: body)) else { throw .unavailable("not the {\"user\": …} expected") }
        guard let user = answer.user?.trimmingCharacters(in: .whitespaces), !user.isEmpty else { throw .unknownBadge }
        // A login is an email address, as everywhere else on this server: a directory that answers
        // other text (`{"user": "not an email at all"}`) failed; nobody is made from it.
        guard let login = EmailAddress(user) else {
            throw .unavailable("it answered a user that is not an email address (local@domain.tld, at most 254 characters)")
        }
        return login.normalized
    }
}
