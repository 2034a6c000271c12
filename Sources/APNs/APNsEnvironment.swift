import Foundation

/// Which APNs server to talk to.
public struct APNsEnvironment: Sendable, Hashable {
    /// The origin, such as `https://api.push.apple.com`; requests go to `<origin>/3/device/<token>`.
    public var baseURL: URL

    public init(baseURL: URL) { self.baseURL = baseURL }

    /// `https://api.push.apple.com`: apps signed for the App Store, TestFlight or ad hoc.
    public static let production = APNsEnvironment(baseURL: URL(string: "https://api.push.apple.com")!)
    /// `https://api.sandbox.push.apple.com`: apps built for development (the older name
    /// `api.development.push.apple.com` reaches the same service).
    public static let development = APNsEnvironment(baseURL: URL(string: "https://api.sandbox.push.apple.com")!)
}
