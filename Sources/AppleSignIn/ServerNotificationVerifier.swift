import Foundation

/// Verifies the server-to-server notifications Apple POSTs to your endpoint as
/// `{"payload":"<JWT>"}`: the same RS256 checks as identity tokens (alg, `kid`, signature, `iss`,
/// `aud`, `exp`, `iat`), then decodes the `events` claim.
///
/// ```swift
/// let notifications = ServerNotificationVerifier(clientIDs: ["com.example.app"], keySet: keySet)
/// let notification = try await notifications.verify(requestBody: body)
/// switch notification.event.kind { case .consentRevoked, .accountDelete: … }
/// ```
public struct ServerNotificationVerifier: Sendable {
    public let clientIDs: [String]
    public let keySet: AppleKeySet
    public let leeway: TimeInterval
    private let now: @Sendable () -> Date

    public init(
        clientIDs: [String], keySet: AppleKeySet, leeway: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientIDs = clientIDs
        self.keySet = keySet
        self.leeway = leeway
        self.now = now
    }

    /// Verifies the body of Apple's POST (`{"payload":"<JWT>"}`).
    public func verify(requestBody: Data) async throws(AppleJWTError) -> ServerNotification {
        struct Body: Decodable { var payload: String }
        guard let body = try? JSONDecoder().decode(Body.self, from: requestBody) else {
            throw .malformed("request body is not {\"payload\": \"<JWT>\"}")
        }
        return try await verify(jwt: body.payload)
    }

    /// Verifies the notification JWT itself.
    public func verify(jwt: String) async throws(AppleJWTError) -> ServerNotification {
        let verified = try await SignedAppleJWT(jwt, as: ServerNotificationPayload.self, keySet: keySet,
                                                clientIDs: clientIDs, leeway: leeway, now: now())
        let payload = verified.claims
        let event = payload.events.event
        return ServerNotification(
            jwtID: payload.jti, issuedAt: payload.iat.date, audience: verified.audience,
            event: ServerNotificationEvent(
                kind: .init(rawValue: event.type), subject: event.sub,
                eventTime: Date(timeIntervalSince1970: event.event_time / 1000),
                email: event.email, isPrivateEmail: event.is_private_email?.value
            )
        )
    }
}
