import Foundation

/// An answer a test makes the server give to the next request for one device token, after the
/// request passed every protocol check.
public enum ScriptedAnswer: Sendable, Hashable {
    /// 410 `{"reason":"Unregistered","timestamp":<ms>}`; later requests for the token get the same.
    case unregistered(since: Date)
    /// Any status with Apple's `{"reason":…}` body, such as `(429, "TooManyRequests")` or
    /// `(500, "InternalServerError")`.
    case status(Int, reason: String)

    public static let tooManyRequests = ScriptedAnswer.status(429, reason: "TooManyRequests")
    public static let internalServerError = ScriptedAnswer.status(500, reason: "InternalServerError")
    public static let serviceUnavailable = ScriptedAnswer.status(503, reason: "ServiceUnavailable")
    /// 403 `ExpiredProviderToken` for a token the server would otherwise accept.
    public static let expiredProviderToken = ScriptedAnswer.status(403, reason: "ExpiredProviderToken")
}

/// One request the server received, and what it answered.
public struct RecordedPush: Sendable, Hashable {
    public var method: String
    public var path: String
    /// The token from the path, `/3/device/<token>`.
    public var deviceToken: String
    /// Header names in lower case; repeated headers keep their last value.
    public var headers: [String: String]
    public var payload: Data
    /// The bearer token, if the request carried one.
    public var providerToken: String?
    public var status: Int
    /// Apple's `reason`, or `nil` for a 200.
    public var reason: String?
    /// The protocol the request came over; always HTTP/2 here, since the server speaks nothing else.
    public var httpVersion: String
}
