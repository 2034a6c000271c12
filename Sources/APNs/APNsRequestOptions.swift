import Foundation

/// `apns-push-type`. Apple requires it on watchOS and recommends it everywhere; it must match
/// the payload (an alert for `alert`, `content-available` only for `background`).
public struct APNsPushType: RawRepresentable, Sendable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let alert = APNsPushType(rawValue: "alert")
    public static let background = APNsPushType(rawValue: "background")
    public static let location = APNsPushType(rawValue: "location")
    public static let voip = APNsPushType(rawValue: "voip")
    public static let complication = APNsPushType(rawValue: "complication")
    public static let fileProvider = APNsPushType(rawValue: "fileprovider")
    public static let mdm = APNsPushType(rawValue: "mdm")
    public static let liveActivity = APNsPushType(rawValue: "liveactivity")
    public static let pushToTalk = APNsPushType(rawValue: "pushtotalk")
    public static let controls = APNsPushType(rawValue: "controls")
    public static let widgets = APNsPushType(rawValue: "widgets")
}

/// `apns-priority`.
public enum APNsPriority: Int, Sendable, Hashable {
    /// 10: deliver at once (alerts the user).
    case immediate = 10
    /// 5: when convenient for the device's power; required for `background` pushes.
    case considerate = 5
    /// 1: opportunistic, may be grouped and delayed.
    case low = 1
}

/// `apns-expiration`.
public enum APNsExpiration: Sendable, Hashable {
    /// `0`: try once, store nothing if the device is offline.
    case immediately
    /// Keep trying until this instant (sent as whole UNIX seconds).
    case at(Date)

    var headerValue: String {
        switch self {
        case .immediately: "0"
        case .at(let date): String(Int64(max(0, date.timeIntervalSince1970.rounded(.down))))
        }
    }
}

/// How a send retries 429 and 5xx answers and broken connections.
public struct APNsRetryPolicy: Sendable, Hashable {
    /// Requests in all, the first included (at least 1).
    public var maximumAttempts: Int
    /// The wait before the second attempt; each later wait is `multiplier` times longer.
    public var initialBackoff: Duration
    public var multiplier: Double
    /// No wait is longer than this.
    public var maximumBackoff: Duration

    public init(maximumAttempts: Int = 3, initialBackoff: Duration = .seconds(1), multiplier: Double = 2,
                maximumBackoff: Duration = .seconds(30)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.multiplier = max(1, multiplier)
        self.maximumBackoff = maximumBackoff
    }

    /// The wait after failed attempt `attempt` (1-based).
    public func backoff(after attempt: Int) -> Duration {
        let factor = pow(multiplier, Double(max(0, attempt - 1)))
        let wait = initialBackoff * factor
        return min(wait, maximumBackoff)
    }
}
