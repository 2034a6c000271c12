import Foundation
import HandoverProtocol

/// How one app does at logging out, over a window of days: what IT compares vendors by.
/// Success rate and timeouts count the app's finished items; the logout time of a success runs
/// from its run's start to its callback (the time a person waits at a shift change). Its reads,
/// ``load(app:now:sites:on:)`` and ``counts(app:now:sites:on:)``, are in the runs' dashboard store
/// (`RunListing`).
package struct AppScorecard: Sendable, Equatable {
    /// One day's figures (UTC days).
    package struct Day: Sendable, Equatable {
        package var start: Date
        package var succeeded = 0
        package var failed = 0
        package var timedOut = 0
        /// The day's 95th percentile logout time of successes, in seconds (nil without successes).
        package var p95Seconds: Double?

        package var finished: Int { succeeded + failed + timedOut }
        package var successRate: Double? { finished == 0 ? nil : Double(succeeded) / Double(finished) }
    }

    /// Figures over a window.
    package struct Window: Sendable, Equatable {
        package var days: Int
        package var succeeded = 0
        package var failed = 0
        package var timedOut = 0
        package var p50Seconds: Double?
        package var p95Seconds: Double?

        package var finished: Int { succeeded + failed + timedOut }
        package var successRate: Double? { finished == 0 ? nil : Double(succeeded) / Double(finished) }
    }

    package var last7: Window
    package var last30: Window
    /// The last 30 days, oldest first.
    package var daily: [Day]

    /// One finished item: how it ended, when, and how long after its run started.
    package struct Outcome: Sendable, Equatable {
        package var state: LogoutItemState
        package var finishedAt: Date
        package var seconds: Double

        package init(state: LogoutItemState, finishedAt: Date, seconds: Double) {
            self.state = state
            self.finishedAt = finishedAt
            self.seconds = seconds
        }
    }

    /// The scorecard of `outcomes` as of `now` (pure, for tests).
    package init(outcomes: [Outcome], now: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let today = calendar.startOfDay(for: now)
        let firstDay = calendar.date(byAdding: .day, value: -29, to: today)!
        func window(_ days: Int) -> Window {
            let since = now.addingTimeInterval(-Double(days) * 86_400)
            let inside = outcomes.filter { $0.finishedAt >= since && $0.finishedAt <= now }
            var window = Window(days: days)
            window.succeeded = inside.count { $0.state == .succeeded }
            window.failed = inside.count { $0.state == .failed }
            window.timedOut = inside.count { $0.state == .timedOut }
            let times = inside.filter { $0.state == .succeeded }.map(\.seconds).sorted()
            window.p50Seconds = Self.percentile(times, 0.50)
            window.p95Seconds = Self.percentile(times, 0.95)
            return window
        }
        last7 = window(7)
        last30 = window(30)
        var days = (0..<30).map { Day(start: calendar.date(byAdding: .day, value: $0, to: firstDay)!) }
        var times = Array(repeating: [Double](), count: 30)
        for outcome in outcomes where outcome.finishedAt >= firstDay && outcome.finishedAt <= now {
            let index = min(29, Int(outcome.finishedAt.timeIntervalSince(firstDay) / 86_400))
            switch outcome.state {
            case .succeeded:
                days[index].succeeded += 1
                times[index].append(outcome.seconds)
            case .failed: days[index].failed += 1
            case .timedOut: days[index].timedOut += 1
            case .pending: break
            }
        }
        for index in days.indices { days[index].p95Seconds = Self.percentile(times[index].sorted(), 0.95) }
        daily = days
    }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, index))]
    }
}
