import Foundation

/// What a shift-change storm measured; `handover bench shift-change --json FILE` writes it.
public struct ShiftChangeFigures: Sendable, Codable {
    public struct Runs: Sendable, Codable {
        public var started: Int
        public var refused: Int
        public var completed: Int
        public var failed: Int
        /// Of the failed runs, those with an app that timed out (no answer after its resends);
        /// the others failed because an app answered error.
        public var failedByTimeOut: Int
        /// Still running when the storm was over (each is a lost hand-over).
        public var unfinished: Int
    }

    public struct Callbacks: Sendable, Codable {
        /// Answered 2xx by the server.
        public var acknowledged: Int
        /// Acknowledged, and the item shows that outcome afterwards.
        public var recorded: Int
        /// Acknowledged but not recorded: must be 0.
        public var lost: Int
        /// Through the browser fallback page rather than the device API.
        public var viaBrowser: Int
        /// Refused (not a duplicate), by status.
        public var refused: Int
        /// Second reports of a recorded callback answered 409, as they must be.
        public var duplicatesRefused: Int
        /// Second reports answered otherwise: must be 0.
        public var duplicatesAccepted: Int
        public var transportErrors: Int
        /// Each callback report's round trip, as the launcher measured it.
        public var latency: LatencySummary
        /// Callbacks recorded per second, first callback to last.
        public var perSecond: Double
    }

    public struct Deadlines: Sendable, Codable {
        /// Stalled links the server reissued after their deadline.
        public var fired: Int
        /// Stalled links not reissued within 30 s of their deadline.
        public var missed: Int
        /// How late each reissue came after its deadline: an upper bound, from the run request
        /// plus the deadline to the answer that showed the new link.
        public var lateness: LatencySummary
        /// How late each deadline fired by the servers' own record (their `/metrics`
        /// histogram, from the due time to the commit of the reissue), over the storm; nil when
        /// a server does not publish it.
        public var serverRecord: DeadlineLatenessRecord?
        /// Apps of the started runs that ignored their first link: each calls for one deadline.
        public var stallsPlayed: Int?

        /// Deadlines the servers fired beyond those the stalls call for (apps that had answered,
        /// or whose turn came late because the server queued): 0 in a storm the server kept up
        /// with; nil without the servers' record.
        public var uncalledFor: Int? {
            guard let serverRecord, let stallsPlayed else { return nil }
            return max(0, serverRecord.fired - stallsPlayed)
        }
    }

    /// New work the servers shed past their capacity (`503` with `Retry-After`), and the
    /// launchers' tries again, waited out as the SDK does (`BusyServerPolicy`).
    public struct Shedding: Sendable, Codable {
        /// Answers `503 Service Unavailable`.
        public var busyAnswers: Int
        /// Runs started only after at least one such answer.
        public var startsRetried: Int
        /// Tries sent again after one (run starts and check-outs).
        public var retries: Int
    }

    /// The launchers' check-outs: each phone checked out by badge to a person of its own right
    /// before its run, and the custody read back after the storm.
    public struct CheckOuts: Sendable, Codable {
        /// Answered 201: the phone is checked out to the badge's person.
        public var done: Int
        /// Refused (any other status) or unanswered: must be 0. The run started anyway.
        public var refused: Int
        /// Each answered check-out's round trip, the badge lookup included.
        public var latency: LatencySummary
        /// Phones checked out whose custody the server shows checked in by the run their
        /// launcher started.
        public var recorded: Int
        /// Phones checked out whose custody is missing, names another person, or was not checked
        /// in by their run: must be 0.
        public var unmatched: Int
    }

    /// The server's resident memory, in MB, when the bench started the server itself.
    public struct Memory: Sendable, Codable {
        public var beforeMB: Double
        public var peakMB: Double
        public var afterMB: Double
        /// `after / before`.
        public var afterRatio: Double { beforeMB > 0 ? afterMB / beforeMB : 0 }

        public init(beforeMB: Double, peakMB: Double, afterMB: Double) {
            self.beforeMB = beforeMB
            self.peakMB = peakMB
            self.afterMB = afterMB
        }
    }

    /// The dashboards open during the storm.
    public struct Dashboards: Sendable, Codable {
        public var opened: Int
        /// Streams the server accepted.
        public var connected: Int
        /// Live `replace` events received (one per changed section), all dashboards together.
        public var updates: Int
        /// Streams that ended or failed before the storm was over.
        public var dropped: Int
    }

    /// One dashboard page loaded again and again after the storm.
    public struct PageTiming: Sendable, Codable {
        public var name: String
        public var path: String
        /// How many loads got each HTTP status (0: no answer).
        public var statuses: [Int: Int]
        public var latency: LatencySummary

        /// Every load answered 200.
        public var isOK: Bool { statuses.keys.allSatisfy { $0 == 200 } && !statuses.isEmpty }
    }

    /// The audit log's entries before and after the storm (`GET /api/v1/audit/entries`).
    public struct AuditLogGrowth: Sendable, Codable {
        public var before: Int
        public var after: Int
        /// Entries a hand-over added.
        public var perHandOver: Double
    }

    public var plan: ShiftChangePlan
    /// `sqlite`, `postgres` or `external`.
    public var database: String
    public var instances: Int
    public var setupSeconds: Double
    public var stormSeconds: Double
    public var runs: Runs
    public var runStartLatency: LatencySummary
    public var callbacks: Callbacks
    public var deadlines: Deadlines
    /// Nil when the storm played without check-outs (`--no-check-out`, or against `--server`).
    public var checkOuts: CheckOuts?
    public var memory: [Memory] = []
    public var dashboards: Dashboards?
    public var pages: [PageTiming] = []
    /// How much the audit log grew during the storm; nil when the server has none to read.
    public var auditLog: AuditLogGrowth?
    /// New work shed and tried again; nil from a bench that did not count it.
    public var shedding: Shedding?
    /// Anything the storm saw go wrong, by kind (`callback 404`, `run 500`, …).
    public var refusals: [String: Int]
    /// The storm's requests that were answered, the reads that check it afterwards included.
    public var answers = 0
    /// Of ``answers``, those that were `429`. Every request carried a valid key, which is never
    /// throttled, whatever else its address sends: anything but 0 is a fault.
    public var rateLimited = 0

    /// Whether every hand-over was recorded: nothing lost or unfinished, no duplicate accepted, no
    /// deadline missed, no transport error, no valid request throttled, every check-out done and
    /// its custody checked in by its run.
    public var isClean: Bool {
        (checkOuts.map { $0.refused == 0 && $0.unmatched == 0 } ?? true)
            && callbacks.lost == 0 && runs.unfinished == 0 && runs.refused == 0 && callbacks.duplicatesAccepted == 0
            && deadlines.missed == 0 && callbacks.transportErrors == 0 && rateLimited == 0 && pages.allSatisfy(\.isOK)
            && (dashboards.map { $0.dropped == 0 && $0.connected == $0.opened } ?? true)
    }
}
