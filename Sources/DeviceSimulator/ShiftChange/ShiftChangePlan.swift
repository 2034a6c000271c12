import Foundation

/// What a shift-change storm plays: how many phones hand over, how many apps each logs out, over
/// how long a window, and what share of the apps stall, fail or answer twice.
public struct ShiftChangePlan: Sendable, Codable {
    /// Phones that hand over (one logout run each).
    public var devices: Int
    /// Target apps registered for the storm; every run logs all of them out.
    public var apps: Int
    /// Seconds over which the phones' runs start, spread evenly at random.
    public var windowSeconds: Double
    /// Share of apps whose first link gets no answer: its deadline fires, the server reissues
    /// the link, and the app answers the second one.
    public var stallRate: Double
    /// Share of apps that answer on their error URL (their run then fails).
    public var failureRate: Double
    /// Share of callbacks that arrive through the browser fallback page instead of the device API.
    public var browserShare: Double
    /// Share of recorded callbacks reported a second time (the server must refuse each with 409).
    public var duplicateRate: Double
    /// Each app's deadline, in seconds (the registry's `deadlineSeconds`).
    public var deadlineSeconds: Int
    /// How long an app takes to log out before it answers, in milliseconds (uniform in this range).
    public var appTimeMilliseconds: ClosedRange<Int>
    /// HTTP connections the launchers share, per server instance.
    public var connections: Int
    /// Seeds the storm's randomness, so that a run can be repeated.
    public var seed: UInt64
    /// Dashboards open on the live overview (server-sent events) while the storm runs.
    public var dashboards: Int = 0
    /// Loads of each dashboard page timed after the storm, with the whole fleet in the database.
    public var pageSamples: Int = 40
    /// Whether each phone is checked out to a person, by badge, before its hand-over (the servers
    /// need the bench's ``BadgeDirectory`` as their badge lookup).
    public var checksOut: Bool = true
    /// When: false (the default), every phone is checked out before the hand-over window, as the
    /// previous shift's people took their phones hours before (16 docks at once, timed); true,
    /// each launcher checks its phone out right before its run, inside the window, as if taking
    /// and handing over were one step.
    public var checkOutInWindow: Bool = false

    public init(devices: Int, apps: Int, windowSeconds: Double = 60, stallRate: Double = 0.05, failureRate: Double = 0.01,
                browserShare: Double = 0.2, duplicateRate: Double = 0.01, deadlineSeconds: Int = 5,
                appTimeMilliseconds: ClosedRange<Int> = 50...300, connections: Int = 64, seed: UInt64 = 2026,
                dashboards: Int = 0, pageSamples: Int = 40, checksOut: Bool = true, checkOutInWindow: Bool = false) {
        self.checkOutInWindow = checkOutInWindow
        self.devices = devices
        self.apps = apps
        self.windowSeconds = windowSeconds
        self.stallRate = stallRate
        self.failureRate = failureRate
        self.browserShare = browserShare
        self.duplicateRate = duplicateRate
        self.deadlineSeconds = deadlineSeconds
        self.appTimeMilliseconds = appTimeMilliseconds
        self.connections = connections
        self.seed = seed
        self.dashboards = dashboards
        self.pageSamples = pageSamples
        self.checksOut = checksOut
    }

    /// What one app on one phone does in the storm.
    enum AppPart: Equatable {
        case answers
        case stalls
        case fails
    }
}

/// A small, seedable random generator (SplitMix64), so that a storm can be played again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
