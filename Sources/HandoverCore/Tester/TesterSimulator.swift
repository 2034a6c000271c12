import Foundation

/// A simulated phone the tester can drive instead of a person: it installs a simulated app
/// with a chosen behaviour and opens the tester's links on it.
///
/// `HandoverServer` knows no simulator; the command line (`handover demo`,
/// `handover tester run --simulate`) passes one in, built on `DeviceSimulator`.
public protocol TesterSimulator: Sendable {
    /// The behaviours a person may pick (`conformant`, `silent`, …).
    var behaviours: [String] { get }

    /// Installs a new simulated app with `behaviour`, whose association file claims its logout
    /// action, and signs a user in to it.
    /// - Parameter allowedCallbackHost: the one host the app accepts callbacks to, when it
    ///   declares an allowlist (apps built on `LogoutReceiver` do; the others ignore it).
    func installApp(behaviour: String, allowedCallbackHost: String) async throws -> SimulatedTesterApp

    /// Opens a link on the simulated phone, as a tap would.
    func open(_ link: String) async
}

/// An app a ``TesterSimulator`` installed.
public struct SimulatedTesterApp: Sendable {
    /// Its logout action URL (on the simulator's loopback server).
    public var actionURL: String
    /// Whether it accepts callbacks only to an allowlist of hosts.
    public var declaresAllowlist: Bool

    public init(actionURL: String, declaresAllowlist: Bool) {
        self.actionURL = actionURL
        self.declaresAllowlist = declaresAllowlist
    }
}
