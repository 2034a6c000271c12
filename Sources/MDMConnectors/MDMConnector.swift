import AsyncHTTPClient
import Foundation
import HandoverProtocol
import NIOCore
import NIOFoundationCompat
import OutboundHTTP
import NIOHTTP1

/// One command for one device, as a connector sends it.
package struct MDMCommandRequest: Sendable {
    package var action: MDMAction
    package var deviceName: String
    /// How the MDM finds the device (upper-cased).
    package var serialNumber: String?
    /// The MDM's own id for it, when the registry has one (then no lookup is needed).
    package var mdmDeviceID: String?
    package var message: String?
    package var phoneNumber: String?
    package var footnote: String?
    /// For Return to Service: the profiles the erased device installs.
    package var returnToService: ReturnToServiceProfiles?

    package init(action: MDMAction, deviceName: String, serialNumber: String?, mdmDeviceID: String?, message: String?,
                 phoneNumber: String?, footnote: String?, returnToService: ReturnToServiceProfiles? = nil) {
        self.action = action
        self.returnToService = returnToService
        self.deviceName = deviceName
        self.serialNumber = serialNumber
        self.mdmDeviceID = mdmDeviceID
        self.message = message
        self.phoneNumber = phoneNumber
        self.footnote = footnote
    }
}

/// What Apple's Return to Service hands the erased device
/// (https://developer.apple.com/documentation/devicemanagement/erasedevicecommand/command-data.dictionary/returntoservice-data.dictionary):
/// the Wi-Fi profile it joins (an iPhone has no Ethernet), and the MDM enrollment profile, needed
/// only for a device not enrolled through Automated Device Enrollment.
package struct ReturnToServiceProfiles: Sendable, Equatable {
    /// A `.mobileconfig` with a Wi-Fi payload that joins without a person (no captive portal).
    package var wifiProfile: Data
    package var mdmProfile: Data?

    package init(wifiProfile: Data, mdmProfile: Data? = nil) {
        self.wifiProfile = wifiProfile
        self.mdmProfile = mdmProfile
    }
}

/// Why an attempt failed, and what the outbox does next.
package enum MDMFailure: Error, Equatable {
    /// 429: try again after the MDM's Retry-After.
    case retryAfter(seconds: Int, detail: String)
    /// No answer, a 5xx, or a 401 after the token was renewed: retried with back-off.
    case transient(status: Int?, detail: String)
    /// The MDM refused what was asked (no such device, a 400 or 403): not retried.
    case permanent(status: Int?, detail: String)

    package var status: Int? {
        switch self {
        case .retryAfter: 429
        case .transient(let status, _), .permanent(let status, _): status
        }
    }

    package var detail: String {
        switch self {
        case .retryAfter(_, let detail), .transient(_, let detail), .permanent(_, let detail): detail
        }
    }
}

/// Talks to one MDM vendor's API.
package protocol MDMConnector: Sendable {
    /// Finds the device and sends the command; returns the MDM's answer in words (its command
    /// id). Throws ``MDMFailure``.
    func send(_ command: MDMCommandRequest) async throws -> String
    /// What ``send(_:)`` would send, for a dry run.
    func describe(_ command: MDMCommandRequest) -> String
    /// Whether the MDM already has this command from `since` on (an attempt that the server's
    /// crash interrupted may have reached it): its answer in words, or nil.
    func findSent(_ command: MDMCommandRequest, since: Date) async throws -> String?
}

/// An HTTP exchange with an MDM, its failures sorted into ``MDMFailure``. A reply is read up to
/// 64 KB (one device's inventory record is a few KB) within the timeout, body included.
package struct MDMHTTP: Sendable {
    /// The most of an MDM's reply that is read.
    package static let replyLimit = 64 * 1024

    package let client: HTTPClient
    package var timeout: TimeAmount = .seconds(20)

    package init(client: HTTPClient, timeout: TimeAmount = .seconds(20)) {
        self.client = client
        self.timeout = timeout
    }

    package struct Answer {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: Data
        package var text: String { String(decoding: body.prefix(300), as: UTF8.self) }
    }

    package func send(_ method: HTTPMethod, _ url: URL, headers: [(String, String)] = [], body: Data? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(data: body)) }
        do {
            let reply = try await OutboundExchange(client: client, timeout: timeout, replyLimit: Self.replyLimit).send(request)
            return Answer(status: reply.status, headers: reply.headers, body: Data(buffer: reply.body))
        } catch .unreachable(let host, let detail) {
            throw MDMFailure.transient(status: nil, detail: "\(OutboundFailure.unreachable(host: host, detail: detail))")
        } catch {
            let status: Int? = if case .replyTooLong(let status, _) = error { status } else { nil }
            throw MDMFailure.transient(status: status, detail: "\(url.host ?? "the MDM"): \(error)")
        }
    }

    /// The failure an answer outside 2xx means; `what` names the step for people.
    package static func failure(_ answer: Answer, _ what: String) -> MDMFailure {
        let detail = "\(what): HTTP \(answer.status) \(answer.text)"
        switch answer.status {
        case 429:
            let seconds = answer.headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 30
            return .retryAfter(seconds: min(max(seconds, 1), 3600), detail: detail)
        case 401, 408, 500...599: return .transient(status: answer.status, detail: detail)
        default: return .permanent(status: answer.status, detail: detail)
        }
    }
}

/// An OAuth 2.0 client-credentials token (RFC 6749 section 4.4), kept until shortly before it
/// expires and renewed when the MDM says it no longer holds.
package actor ClientCredentialsToken {
    private let http: MDMHTTP
    private let url: URL
    private let form: [(String, String)]
    private let now: @Sendable () -> Date
    private var cached: (token: String, expires: Date)?

    package init(http: MDMHTTP, url: URL, form: [(String, String)], now: @escaping @Sendable () -> Date) {
        self.http = http
        self.url = url
        self.form = form
        self.now = now
    }

    /// A token, renewed when `renew` (the last one was refused with 401) or close to expiry.
    package func token(renew: Bool = false) async throws -> String {
        if !renew, let cached, cached.expires > now() { return cached.token }
        let answer = try await http.send(.POST, url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                                         body: Data(Self.encode(form).utf8))
        guard (200..<300).contains(answer.status) else {
            // A refused client is a setting to fix, not a moment to wait out.
            if answer.status == 400 || answer.status == 401 {
                throw MDMFailure.permanent(status: answer.status, detail: "the token endpoint refused the client credentials: \(answer.text)")
            }
            throw MDMHTTP.failure(answer, "token")
        }
        struct Grant: Decodable { var access_token: String; var expires_in: Int? }
        guard let grant = try? JSONDecoder().decode(Grant.self, from: answer.body) else {
            throw MDMFailure.transient(status: answer.status, detail: "the token endpoint answered no access_token: \(answer.text)")
        }
        // Renewed a little early, so a token never expires between the check and its use.
        cached = (grant.access_token, now().addingTimeInterval(TimeInterval(max((grant.expires_in ?? 60) - 10, 5))))
        return grant.access_token
    }

    /// Sends `request` with a token, renewing the token once if the MDM answers 401.
    package func authorized(_ method: HTTPMethod, _ url: URL, json: Data? = nil) async throws -> MDMHTTP.Answer {
        func attempt(_ token: String) async throws -> MDMHTTP.Answer {
            var headers = [("Authorization", "Bearer " + token), ("Accept", "application/json")]
            if json != nil { headers.append(("Content-Type", "application/json")) }
            return try await http.send(method, url, headers: headers, body: json)
        }
        let answer = try await attempt(try await token())
        guard answer.status == 401 else { return answer }
        return try await attempt(try await token(renew: true))
    }

    package static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { ($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "=" + ($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") }
            .joined(separator: "&")
    }
}
