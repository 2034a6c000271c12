/// The `reason` of an APNs error body `{"reason":"…"}`, as Apple documents it, with
/// ``other(_:)`` for any reason added later.
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    // 400
    case badCollapseID, badDeviceToken, badExpirationDate, badMessageID, badPriority, badTopic, deviceTokenNotForTopic,
         duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken, missingTopic, payloadEmpty, topicDisallowed
    // 403
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken,
         missingProviderToken, unrelatedKeyIDInToken, badEnvironmentKeyInToken
    // 404, 405
    case badPath, methodNotAllowed
    // 410
    case expiredToken, unregistered
    // 413
    case payloadTooLarge
    // 429
    case tooManyProviderTokenUpdates, tooManyRequests
    // 500, 503
    case internalServerError, serviceUnavailable, shutdown
    /// A reason this code does not know, as Apple wrote it.
    case other(String)

    private static let names: [(APNsReason, String)] = [
        (.badCollapseID, "BadCollapseId"), (.badDeviceToken, "BadDeviceToken"), (.badExpirationDate, "BadExpirationDate"),
        (.badMessageID, "BadMessageId"), (.badPriority, "BadPriority"), (.badTopic, "BadTopic"),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic"), (.duplicateHeaders, "DuplicateHeaders"), (.idleTimeout, "IdleTimeout"),
        (.invalidPushType, "InvalidPushType"), (.missingDeviceToken, "MissingDeviceToken"), (.missingTopic, "MissingTopic"),
        (.payloadEmpty, "PayloadEmpty"), (.topicDisallowed, "TopicDisallowed"), (.badCertificate, "BadCertificate"),
        (.badCertificateEnvironment, "BadCertificateEnvironment"), (.expiredProviderToken, "ExpiredProviderToken"),
        (.forbidden, "Forbidden"), (.invalidProviderToken, "InvalidProviderToken"), (.missingProviderToken, "MissingProviderToken"),
        (.unrelatedKeyIDInToken, "UnrelatedKeyIdInToken"), (.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken"),
        (.badPath, "BadPath"), (.methodNotAllowed, "MethodNotAllowed"), (.expiredToken, "ExpiredToken"),
        (.unregistered, "Unregistered"), (.payloadTooLarge, "PayloadTooLarge"),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates"), (.tooManyRequests, "TooManyRequests"),
        (.internalServerError, "InternalServerError"), (.serviceUnavailable, "ServiceUnavailable"), (.shutdown, "Shutdown"),
    ]

    /// Reads Apple's spelling; an unknown one becomes ``other(_:)``.
    public init(_ text: String) {
        self = Self.names.first { $0.1 == text }?.0 ?? .other(text)
    }

    /// Apple's spelling.
    public var text: String {
        if case .other(let text) = self { return text }
        return Self.names.first { $0.0 == self }?.1 ?? ""
    }

    public var description: String { text }
}
