import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends pushes through Apple's HTTP/2 provider API: `POST /3/device/<token>` with a provider
/// token, retrying what may pass later and nothing else.
///
/// | APNs answers | `send` |
/// |---|---|
/// | 200 | returns ``APNsOutcome/delivered(apnsID:)`` |
/// | 410 `Unregistered`/`ExpiredToken` | returns ``APNsOutcome/unregistered(since:apnsID:)``: deactivate the token |
/// | 403 `ExpiredProviderToken` | renews the provider token once and sends again |
/// | 429, 500, 503, no answer | waits (exponential backoff) and sends again, up to ``APNsRetryPolicy/maximumAttempts``, then throws ``APNsError/gaveUp(attempts:lastFailure:)`` |
/// | any other 4xx (`BadDeviceToken`, …) | throws ``APNsError/rejected(status:reason:apnsID:)`` at once, never retried |
///
/// A payload over 4096 bytes is refused before anything is sent.
///
/// ```swift
/// let client = APNsClient(httpClient: .shared, token: token, environment: .production)
/// switch try await client.send(deviceToken: hex, payload: body, topic: "com.example.app") {
/// case .delivered: break
/// case .unregistered: try await devices.deactivatePushToken(hex)
/// }
/// ```
public struct APNsClient: Sendable {
    /// APNs's payload limit for every push type but VoIP.
    public static let maximumPayloadBytes = 4096
    /// VoIP pushes may carry up to 5120 bytes.
    public static let maximumVoIPPayloadBytes = 5120

    public let environment: APNsEnvironment
    public let retryPolicy: APNsRetryPolicy
    private let httpClient: HTTPClient
    private let token: APNsProviderToken
    private let timeout: Duration
    private let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameters:
    ///   - httpClient: the client to send with. It must negotiate HTTP/2 (AsyncHTTPClient does
    ///     by default over TLS); inject one that trusts a test server's certificate in tests.
    ///   - token: the provider token, shared by every client that uses the same key.
    ///   - environment: production or development, or a test server's origin.
    ///   - retryPolicy: attempts and backoff for 429, 5xx and connection failures.
    ///   - timeout: for each request.
    ///   - sleep: waits between attempts; tests inject one that records and returns at once.
    public init(httpClient: HTTPClient, token: APNsProviderToken, environment: APNsEnvironment = .production,
                retryPolicy: APNsRetryPolicy = APNsRetryPolicy(), timeout: Duration = .seconds(30),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.httpClient = httpClient
        self.token = token
        self.environment = environment
        self.retryPolicy = retryPolicy
        self.timeout = timeout
        self.sleep = sleep
    }

    /// Sends one push.
    ///
    /// - Parameters:
    ///   - deviceToken: the token the app got from `registerForRemoteNotifications`, as hex.
    ///   - payload: the JSON body, `{"aps":{…},…}`.
    ///   - topic: `apns-topic`, normally the app's bundle id (with `.voip` and the like for some push types).
    ///   - pushType: `apns-push-type`: what the push is (an alert, a background update, VoIP, …); it
    ///     must match the payload, and VoIP pushes may be larger.
    ///   - priority: `apns-priority`: send at once (10), or when the device saves power (5).
    ///   - expiration: `apns-expiration`: how long APNs keeps trying a device that is offline.
    ///   - collapseID: `apns-collapse-id`: a newer push with the same id replaces the older one (at most 64 bytes).
    ///   - apnsID: `apns-id`, which APNs echoes and Apple's delivery log shows; kept across retries.
    public func send(deviceToken: String, payload: Data, topic: String, pushType: APNsPushType = .alert,
                     priority: APNsPriority = .immediate, expiration: APNsExpiration = .immediately,
                     collapseID: String? = nil, apnsID: UUID = UUID()) async throws(APNsError) -> APNsOutcome {
        let limit = pushType == .voip ? Self.maximumVoIPPayloadBytes : Self.maximumPayloadBytes
        guard payload.count <= limit else { throw .payloadTooLarge(bytes: payload.count, limit: limit) }
        guard !payload.isEmpty else { throw .invalidRequest(field: "payload", detail: "the payload is empty") }
        try Self.validate(deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority, collapseID: collapseID)

        var attempt = 0
        var renewedProviderToken = false
        var jwt: String
        do { jwt = try token.current() } catch { throw .invalidRequest(field: "provider token", detail: error.description) }
        while true {
            attempt += 1
            let failure: APNsAttemptFailure
            do {
                let answer = try await post(deviceToken: deviceToken, payload: payload, topic: topic, pushType: pushType,
                                            priority: priority, expiration: expiration, collapseID: collapseID, apnsID: apnsID, jwt: jwt)
                switch answer.status {
                case 200:
                    return .delivered(apnsID: answer.apnsID ?? apnsID.uuidString)
                case 410:
                    return .unregistered(since: answer.timestamp, apnsID: answer.apnsID)
                case 403 where answer.reason == .expiredProviderToken && !renewedProviderToken:
                    renewedProviderToken = true
                    do { jwt = try token.renew(replacing: jwt) } catch {
                        throw APNsError.invalidRequest(field: "provider token", detail: error.description)
                    }
                    attempt -= 1  // a renewal is not a retry of a failed delivery
                    continue
                case 429, 500...599:
                    failure = .status(answer.status, answer.reason)
                default:
                    throw APNsError.rejected(status: answer.status, reason: answer.reason, apnsID: answer.apnsID)
                }
            } catch let error as APNsError {
                throw error
            } catch {
                failure = .transport(String(describing: error))
            }
            guard attempt < retryPolicy.maximumAttempts else { throw .gaveUp(attempts: attempt, lastFailure: failure) }
            do { try await sleep(retryPolicy.backoff(after: attempt)) } catch {
                throw .gaveUp(attempts: attempt, lastFailure: failure)  // cancelled while waiting
            }
        }
    }

    private struct Answer {
        var status: Int
        var reason: APNsReason
        var apnsID: String?
        var timestamp: Date?
    }

    private func post(deviceToken: String, payload: Data, topic: String, pushType: APNsPushType, priority: APNsPriority,
                      expiration: APNsExpiration, collapseID: String?, apnsID: UUID, jwt: String) async throws -> Answer {
        var origin = environment.baseURL.absoluteString
        while origin.hasSuffix("/") { origin.removeLast() }
        var request = HTTPClientRequest(url: "\(origin)/3/device/\(deviceToken)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(jwt)")
        request.headers.add(name: "apns-topic", value: topic)
        request.headers.add(name: "apns-push-type", value: pushType.rawValue)
        request.headers.add(name: "apns-priority", value: String(priority.rawValue))
        request.headers.add(name: "apns-expiration", value: expiration.headerValue)
        request.headers.add(name: "apns-id", value: apnsID.uuidString.lowercased())
        if let collapseID { request.headers.add(name: "apns-collapse-id", value: collapseID) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: payload))
        let seconds = timeout.components.seconds
        let response = try await httpClient.execute(request, timeout: .seconds(max(1, seconds)))
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct ErrorBody: Decodable { var reason: String?; var timestamp: Double? }
        let parsed = response.status == .ok ? nil : try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView))
        return Answer(status: Int(response.status.code),
                      reason: APNsReason(parsed?.reason ?? (response.status == .ok ? "" : response.status.reasonPhrase)),
                      apnsID: response.headers.first(name: "apns-id"),
                      timestamp: parsed?.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) })
    }

    static func validate(deviceToken: String, topic: String, pushType: APNsPushType, priority: APNsPriority,
                         collapseID: String?) throws(APNsError) {
        guard !deviceToken.isEmpty, deviceToken.count <= 400, deviceToken.count.isMultiple(of: 2),
              deviceToken.allSatisfy({ $0.isHexDigit && $0.isASCII }) else {
            throw .invalidRequest(field: "deviceToken", detail: "the device token must be hexadecimal bytes (64 characters today)")
        }
        guard !topic.isEmpty, topic.count <= 255, topic.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0.asciiValue.map { $0 > 0x20 && $0 < 0x7F } == true }) else {
            throw .invalidRequest(field: "topic", detail: "the topic must be the app's bundle id, such as com.example.app")
        }
        if pushType == .background, priority == .immediate {
            throw .invalidRequest(field: "priority", detail: "a background push must use priority 5 (.considerate) or 1 (.low)")
        }
        if let collapseID, collapseID.utf8.count > 64 || collapseID.isEmpty || collapseID.contains(where: { $0.isNewline }) {
            throw .invalidRequest(field: "collapseID", detail: "apns-collapse-id must be 1 to 64 bytes on one line")
        }
        guard pushType.rawValue.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .invalidRequest(field: "pushType", detail: "'\(pushType.rawValue)' is not an apns-push-type")
        }
    }
}
