import Foundation
import HandoverProtocol
import LinkCallbacks

/// The launcher side of a logout run kept by the Handover server: the server issues each app's
/// ULC link and its deadlines; the launcher opens the links and reports the callbacks it receives.
///
/// ```swift
/// let logout = ServerBackedLogout(server: FleetServer(baseURL: url, deviceID: id, deviceKey: key),
///                                 opener: UIApplicationURLOpener())
/// // When a callback universal link (…/ulc/cb/…) arrives:  await logout.handleCallback(url)
/// let report = try await logout.run()
/// ```
///
/// The loop: start the run; then, until the server says it is no longer `running`, open the
/// first pending item (in position order) whose current attempt has not been opened yet — a
/// new attempt after the server reissued it, or an item not reached yet — then wait for a
/// callback or ``pollInterval``, whichever comes first, and read the run again. Items are
/// opened one per turn rather than strictly one after another, so that an app that stalls does
/// not hold up the apps after it: the server counts an app's first deadline from the run's start
/// or, when later, the last answer of an app before it, not from when this launcher opened it.
///
/// Callbacks are reported only when they answer the link this launcher opened last for their
/// item (as in local mode, an answer to an attempt that was superseded is too late and is
/// refused here, so a slow app ends `timed_out`). With `verifySignedOut`, a success callback
/// from an app whose user is still signed in is reported as that item's *error* callback
/// (same nonce), so the server records it `failed`.
public actor ServerBackedLogout: LauncherCallbackHandler {
    private let server: FleetServer
    private let opener: any URLOpener
    private let clock: any Clock<Duration>
    /// How long to wait for a callback before reading the run again.
    public nonisolated let pollInterval: Duration
    private let verifySignedOut: (@Sendable (String) async -> Bool)?
    private let itemFinished: (@Sendable (FleetRun.Item, Duration) async -> Void)?

    private struct Opened {
        var attempts: Int
        /// The error callback, reported instead of a success the app did not earn.
        var error: URL
        var nonce: String?
    }

    /// What to open for an item's link, and its two callbacks: a ULC, or an x-callback-url whose
    /// x-success and x-error are the callbacks (iOS asks the person before opening it).
    static func target(of link: String) -> (open: URL, success: URL, error: URL)? {
        if let ulc = try? UniversalLinkCallback(parsing: link) { return (ulc.url, ulc.success, ulc.error) }
        if let request = try? XCallbackRequest(parsing: link), let success = request.success, let error = request.error,
           let url = request.url {
            return (url, success, error)
        }
        return nil
    }

    private var current: FleetRun?
    private var opened: [UUID: Opened] = [:]
    private var reasons: [UUID: String] = [:]
    private var wakeRequested = false
    private var waiter: (generation: Int, continuation: CheckedContinuation<Void, Never>)?
    private var generation = 0

    /// - Parameters:
    ///   - server: the Handover server that keeps the run.
    ///   - opener: opens each app's ULC link.
    ///   - clock: drives waiting and the durations in the report; a `TestClock` in tests.
    ///   - pollInterval: how long to wait for a callback before reading the run again.
    ///   - verifySignedOut: given an app's registered name after its success callback; return
    ///     `false` when the user is still signed in, and the app is reported as failed.
    ///   - itemFinished: called once per app as soon as the run shows it finished, with the time
    ///     since its first link was opened (to show progress while the others are pending).
    public init(server: FleetServer, opener: any URLOpener, clock: any Clock<Duration> = ContinuousClock(),
                pollInterval: Duration = .seconds(1), verifySignedOut: (@Sendable (String) async -> Bool)? = nil,
                itemFinished: (@Sendable (FleetRun.Item, Duration) async -> Void)? = nil) {
        self.server = server
        self.opener = opener
        self.clock = clock
        self.pollInterval = pollInterval
        self.verifySignedOut = verifySignedOut
        self.itemFinished = itemFinished
    }

    /// The run as last read from the server.
    public var currentRun: FleetRun? { current }

    /// Starts a run of `apps` (registered ids; every target app when `nil`), drives it until
    /// the server finishes it, and reports how each app ended, in the run's order.
    public func run(apps: [UUID]? = nil) async throws(FleetServerError) -> LogoutReport {
        var run = try await server.startRun(apps: apps)
        current = run
        opened = [:]
        reasons = [:]
        let stopwatch = Stopwatch(clock: clock)
        var firstOpened: [UUID: Duration] = [:]
        var finished: [UUID: Duration] = [:]
        while run.isRunning {
            let next = run.items.sorted { $0.position < $1.position }.first { item in
                item.isPending && item.link != nil && opened[item.id]?.attempts != item.attempts
            }
            if let item = next, let link = item.link, let target = Self.target(of: link) {
                opened[item.id] = Opened(attempts: item.attempts, error: target.error, nonce: CallbackURL(target.success)?.nonce)
                if firstOpened[item.id] == nil { firstOpened[item.id] = stopwatch.elapsed }
                _ = await opener.open(target.open)
            }
            await waitForCallback(orAtMost: pollInterval)
            run = try await server.run(run.id)
            current = run
            for item in run.items.sorted(by: { $0.position < $1.position }) where !item.isPending && finished[item.id] == nil {
                finished[item.id] = stopwatch.elapsed
                await itemFinished?(item, stopwatch.elapsed - (firstOpened[item.id] ?? stopwatch.elapsed))
            }
        }
        return LogoutReport(runID: run.id.uuidString.lowercased(), entries: run.items.sorted { $0.position < $1.position }.map { item in
            let start = firstOpened[item.id] ?? finished[item.id] ?? .zero
            let took = (finished[item.id] ?? stopwatch.elapsed) - start
            let outcome = item.status.outcome ?? .timedOut
            let reason = outcome == .failed ? (reasons[item.id] ?? "the server recorded it failed") : nil
            return LogoutReport.Entry(app: item.app, outcome: outcome, attempts: item.attempts,
                                      durationMilliseconds: took.components.seconds * 1000
                                          + took.components.attoseconds / 1_000_000_000_000_000,
                                      reason: reason)
        })
    }

    // MARK: Callbacks

    /// Takes a callback universal link (`…/ulc/cb/<run>/<item>/success|error?n=<nonce>`) and
    /// reports it to the server: `true` when the server recorded it.
    @discardableResult
    public func handleCallback(_ url: URL) async -> Bool {
        defer { wake() }
        guard let run = current, let callback = CallbackURL(url), callback.run == run.id,
              let link = opened[callback.item], callback.nonce == link.nonce else {
            return false
        }
        let itemID = callback.item
        var report = url
        if callback.outcome == .success, let verifySignedOut, let item = run.items.first(where: { $0.id == itemID }),
           !(await verifySignedOut(item.app)) {
            report = link.error
            reasons[itemID] = "it answered success, but the user is still signed in"
        } else if callback.outcome == .error {
            reasons[itemID] = "it opened its error URL"
        }
        guard case .recorded = try? await server.reportCallback(run: run.id, url: report) else { return false }
        return true
    }

    // MARK: Waiting

    private func waitForCallback(orAtMost interval: Duration) async {
        if wakeRequested {
            wakeRequested = false
            return
        }
        generation += 1
        let mine = generation
        let clock = self.clock
        let timer = Task { [weak self] in
            do { try await clock.sleep(for: interval) } catch { return }
            await self?.timerFired(mine)
        }
        await withCheckedContinuation { continuation in
            waiter = (mine, continuation)
        }
        timer.cancel()
    }

    private func timerFired(_ generation: Int) {
        guard let waiter, waiter.generation == generation else { return }
        self.waiter = nil
        waiter.continuation.resume()
    }

    private func wake() {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume()
        } else {
            wakeRequested = true
        }
    }
}
