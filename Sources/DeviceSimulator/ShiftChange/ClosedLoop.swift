import Foundation

/// What a closed loop of whole hand-overs measured: the server's capacity, and so the knee of
/// the storms (`handover bench shift-change --closed-loop N`).
public struct ClosedLoopFigures: Sendable, Codable {
    /// Launchers handing over at once, each its own phone, back to back.
    public var launchers: Int
    /// The measured span (after the warm-up), in seconds.
    public var seconds: Double
    /// Hand-overs finished in the span (check-out when the plan checks out, run start, every app answered).
    public var handOvers: Int
    public var handOversPerSecond: Double
    /// Callbacks acknowledged in the span, per second: the rate a storm's goodput is held to.
    public var callbacksPerSecond: Double
    /// Run starts per second in the span.
    public var runStartsPerSecond: Double
    public var callbackLatency: LatencySummary
    public var runStartLatency: LatencySummary
    /// Answers `503` (the server shedding new work); tries again are waited out as the SDK does.
    public var busyAnswers: Int
    public var transportErrors: Int
    /// Anything refused, by kind.
    public var refusals: [String: Int]
    /// What the span cost the machine, when the bench could read it.
    public var cost: Cost?

    /// The CPU the span took, of the servers and of PostgreSQL's processes (Linux `/proc`), and the
    /// statements PostgreSQL ran (`pg_stat_statements`).
    public struct Cost: Sendable, Codable {
        /// Every Handover server the bench started.
        public var handoverCPUSeconds: Double
        /// The postmaster and every process it started, those that exited included; nil on SQLite.
        public var postgresCPUSeconds: Double?
        /// The load generator (this process), apart: not part of the cost.
        public var generatorCPUSeconds: Double
        /// Statements PostgreSQL ran in the span; nil on SQLite or without `pg_stat_statements`.
        public var statements: Int?
        /// Handover and PostgreSQL together, per 1,000 hand-overs (filled by ``ClosedLoopFigures/withCost(_:)``).
        public var cpuSecondsPer1000HandOvers: Double = 0
        /// Statements per hand-over and per callback.
        public var statementsPerHandOver: Double?
        public var statementsPerCallback: Double?

        public init(handoverCPUSeconds: Double, postgresCPUSeconds: Double?, generatorCPUSeconds: Double, statements: Int?) {
            self.handoverCPUSeconds = handoverCPUSeconds
            self.postgresCPUSeconds = postgresCPUSeconds
            self.generatorCPUSeconds = generatorCPUSeconds
            self.statements = statements
        }
    }

    /// These figures with `cost`, its ratios to the hand-overs and callbacks of the span filled in.
    public func withCost(_ cost: Cost) -> ClosedLoopFigures {
        var cost = cost
        let handOvers = Double(max(1, handOvers)), callbacks = max(1, callbacksPerSecond * seconds)
        cost.cpuSecondsPer1000HandOvers = (cost.handoverCPUSeconds + (cost.postgresCPUSeconds ?? 0)) / handOvers * 1000
        cost.statementsPerHandOver = cost.statements.map { Double($0) / handOvers }
        cost.statementsPerCallback = cost.statements.map { Double($0) / callbacks }
        var figures = self
        figures.cost = cost
        return figures
    }

    /// An edge of the measured span, for a caller that reads what it cost.
    public enum SpanEdge: Sendable {
        case start, end
    }

    /// The storm that offers as many hand-overs as the server finishes: this many phones over a
    /// window of `windowSeconds`.
    public func kneePhones(windowSeconds: Double) -> Int {
        Int((handOversPerSecond * windowSeconds).rounded())
    }
}

extension ShiftChangeBench {
    /// Plays a closed loop on `fleet`: `launchers` of its phones each hand over again and again
    /// (apps answering at once, so the loop measures the server and not the apps), for
    /// `warmUp` and then `duration`; the rates count the second span only. Stalls and failures
    /// follow the plan. `progress` gets a line every two seconds.
    /// `edge` is called as the span starts and as it ends, for a caller that measures what the
    /// span cost.
    public func closedLoop(_ fleet: Fleet, launchers count: Int, warmUp: Duration, duration: Duration,
                           edge: (@Sendable (ClosedLoopFigures.SpanEdge) async -> Void)? = nil,
                           progress: @escaping @Sendable (String) -> Void) async -> ClosedLoopFigures {
        var plan = plan
        plan.appTimeMilliseconds = 0...0
        plan.windowSeconds = 0
        plan.checkOutInWindow = true
        let bench = ShiftChangeBench(plan: plan, servers: servers, adminKey: adminKey, databaseName: databaseName)
        let http = BenchHTTP(connections: max(plan.connections, count) * servers.count)
        let tally = StormTally()
        let launchers = Array(bench.makeLaunchers(fleet, http: http, tally: tally).prefix(count))
        let start = ContinuousClock.now
        let measureFrom = start + warmUp, end = measureFrom + duration
        let reporter = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                let (done, callbacks) = tally.read { ($0.devicesDone, $0.callbacksAcknowledged) }
                let elapsed = start.duration(to: .now)
                progress(String(format: "  %5.1f s: %d hand-overs, %d callbacks", Self.seconds(elapsed), done, callbacks)
                    + (ContinuousClock.now < measureFrom ? " (warming up)" : ""))
            }
        }
        let atStart = Task { () -> StormTally.Counts in
            try? await Task.sleep(until: measureFrom, clock: .continuous)
            await edge?(.start)
            return tally.read { $0 }
        }
        // Counted at `end`; the hand-overs under way then finish outside the span.
        let atEnd = Task { () -> StormTally.Counts in
            try? await Task.sleep(until: end, clock: .continuous)
            let counts = tally.read { $0 }
            await edge?(.end)
            return counts
        }
        await withTaskGroup(of: Void.self) { group in
            for launcher in launchers {
                group.addTask {
                    while ContinuousClock.now < end { await launcher.play(start: .now) }
                }
            }
        }
        reporter.cancel()
        let (before, after) = (await atStart.value, await atEnd.value)
        let transportErrors = tally.read(\.transportErrors), refusals = tally.read(\.refusals)
        await http.shutdown()
        let seconds = Self.seconds(duration)
        let handOvers = after.devicesDone - before.devicesDone
        return ClosedLoopFigures(
            launchers: launchers.count, seconds: seconds, handOvers: handOvers,
            handOversPerSecond: Double(handOvers) / seconds,
            callbacksPerSecond: Double(after.callbacksAcknowledged - before.callbacksAcknowledged) / seconds,
            runStartsPerSecond: Double(after.runsStarted - before.runsStarted) / seconds,
            callbackLatency: LatencySummary(milliseconds: Array(after.callbackMilliseconds.dropFirst(before.callbackMilliseconds.count))),
            runStartLatency: LatencySummary(milliseconds: Array(after.runStartMilliseconds.dropFirst(before.runStartMilliseconds.count))),
            busyAnswers: http.busy, transportErrors: transportErrors, refusals: refusals, cost: nil)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
