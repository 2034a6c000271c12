import Foundation
import LinkCallbacks

/// The target side of a Universal Link Callback: what an app adds to log out on request.
///
/// ```swift
/// let receiver = try LogoutReceiver(
///     configuration: ReceiverConfiguration(policy: CallbackPolicy(allowedHosts: HostAllowlist(["launcher.example.com"]))),
///     journal: CommandJournal(folder: applicationSupport.appendingPathComponent("ulc")),
///     opener: UIApplicationURLOpener(),
///     handler: LogoutClosure { _ in await session.signOut(); return .signedOut })
///
/// // application(_:continue:restorationHandler:) or .onOpenURL:
/// receiver.handle(url)            // true: checked and journaled, the logout will happen
/// // at the end of your start-up:
/// receiver.appDidFinishLaunching()
/// ```
///
/// The promises, from seed 000 and beyond it:
/// - **Durable before acknowledged.** `handle(_:)` writes the link to the journal (temp file,
///   fsync, rename, folder fsync) before it returns `true`. After a kill at any instant, the
///   next launch completes every accepted command and opens its callback (at least once).
/// - **Cold start.** Links that arrive before ``appDidFinishLaunching()`` wait for it.
/// - **Deadline.** The handler runs under ``ReceiverConfiguration/deadline`` (20 s at most);
///   retryable failures are retried with backoff inside it; then the success URL (also when
///   nobody was signed in) or the error URL is opened, never later than the deadline.
/// - **No open redirect.** A callback the policy refuses is not opened; the logout still runs,
///   and a ``ReceiverEvent/callbackRefused(id:answer:reason:)`` event says so.
/// - **Duplicates.** A link equal to one in flight joins it: the handler runs once, and the
///   callback is opened once per copy, so every sender gets its answer. A resend once the
///   answers have started going out, or after completion, runs the (idempotent) handler
///   again and answers again.
public final class LogoutReceiver: Sendable {
    /// Everything the receiver does, for the app's logging.
    public let events: AsyncStream<ReceiverEvent>

    private let configuration: ReceiverConfiguration
    private let journal: CommandJournal
    private let opener: any URLOpener
    private let handler: any LogoutHandler
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let makeID: @Sendable () -> String
    private let eventSink: AsyncStream<ReceiverEvent>.Continuation
    private let state = Protected(Registry())

    /// The receiver's memory: lost on a force-quit, rebuilt from the journal.
    private struct Registry {
        var launched = false
        var terminated = false
        var commands: [String: LogoutCommand] = [:]
        var stopwatches: [String: Stopwatch] = [:]
        var inFlightByRequest: [String: String] = [:]
        /// Copies of a link that joined a command in flight: each gets its own answer.
        var joiners: [String: Int] = [:]
        var waitingForLaunch: [String] = []
        var tasks: [String: Task<Void, Never>] = [:]
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        /// Nothing left to do: a command leaves the registry only in ``finish(_:)``, after its
        /// journal file is gone, so an app that exits as soon as it is idle leaves no file behind.
        /// (A command marked done is not enough: its file may still be there.)
        var isIdle: Bool { commands.isEmpty }
    }

    /// Makes a receiver. Nothing runs until ``appDidFinishLaunching()``.
    ///
    /// - Parameters:
    ///   - configuration: the callback policy, the deadline and the retries.
    ///   - journal: where received commands are kept until they are answered.
    ///   - opener: opens the success or error callback.
    ///   - handler: the app's own sign-out.
    ///   - clock: measures the deadline and backoff; inject a test clock in tests.
    ///   - now: the wall clock, for signed-request timestamps and logs.
    ///   - makeID: names commands; random UUIDs by default.
    public init(configuration: ReceiverConfiguration = ReceiverConfiguration(), journal: CommandJournal,
                opener: any URLOpener, handler: any LogoutHandler, clock: any Clock<Duration> = ContinuousClock(),
                now: @escaping @Sendable () -> Date = { Date() },
                makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }) {
        self.configuration = configuration
        self.journal = journal
        self.opener = opener
        self.handler = handler
        self.clock = clock
        self.now = now
        self.makeID = makeID
        (events, eventSink) = AsyncStream.makeStream(of: ReceiverEvent.self, bufferingPolicy: .bufferingNewest(1000))
    }

    // MARK: Receiving

    /// Checks a link and journals it; `true` means the logout will happen and a callback will
    /// be opened, even if the app is killed right after. Call it from UIKit's or SwiftUI's
    /// link entry point. It does not wait for the logout.
    @discardableResult
    public func handle(_ url: URL) -> Bool {
        do {
            _ = try accept(url)
            return true
        } catch {
            return false
        }
    }

    /// Like ``handle(_:)``, with the command's id or the reason for refusing.
    @discardableResult
    public func accept(_ url: URL) throws(ReceiverRejection) -> String {
        do {
            return try acceptChecked(url)
        } catch {
            eventSink.yield(.rejected(error))
            throw error
        }
    }

    private func acceptChecked(_ url: URL) throws(ReceiverRejection) -> String {
        let text = url.absoluteString
        let ulc: UniversalLinkCallback
        do {
            try configuration.policy.checkAction(text)
            ulc = try UniversalLinkCallback(parsing: text)
            try configuration.policy.checkAction(ulc.action.absoluteString)
        } catch {
            throw .invalidLink(error)
        }
        if configuration.requireSignedRequests {
            let verifier = configuration.verifier ?? RequestVerifier(trustedKeys: [])
            do { try verifier.verify(ulc, now: now()) } catch { throw .signature(error) }
        }
        let key = LogoutCommand.requestKey(ulc)
        // The journal write happens under the lock, so two copies of one link cannot both
        // become commands; it is one small fsynced file.
        let outcome: Swift.Result<(id: String, joined: Bool, launched: Bool), ReceiverRejection> = state.withLock { registry in
            if registry.terminated { return .failure(.terminated) }
            if let existing = registry.inFlightByRequest[key], let command = registry.commands[existing], !command.state.isFinished {
                registry.joiners[existing, default: 0] += 1
                return .success((existing, true, registry.launched))
            }
            var command = LogoutCommand(id: makeID(), link: ulc.text, receivedAt: now(), state: .received)
            do {
                command.state = try command.state.applying(.journal)
                try journal.save(command)
            } catch let error as JournalError {
                return .failure(.journalUnavailable(error))
            } catch {
                return .failure(.journalUnavailable(JournalError(operation: "journal", path: journal.folder.path, code: 0, detail: "\(error)")))
            }
            registry.commands[command.id] = command
            registry.stopwatches[command.id] = Stopwatch(clock: clock)
            registry.inFlightByRequest[key] = command.id
            if !registry.launched { registry.waitingForLaunch.append(command.id) }
            return .success((command.id, false, registry.launched))
        }
        let accepted = try outcome.get()
        if accepted.joined {
            eventSink.yield(.joinedInFlight(id: accepted.id))
        } else {
            eventSink.yield(.accepted(id: accepted.id))
            if accepted.launched { start(accepted.id) }
        }
        return accepted.id
    }

    // MARK: Launching

    /// Call at the end of the app's start-up. Completes every command left in the journal by
    /// an earlier run, then every link that arrived during start-up, then new links at once.
    public func appDidFinishLaunching() {
        let stored: [LogoutCommand]
        do {
            stored = try journal.load()
        } catch {
            eventSink.yield(.journalFailed(error.description))
            stored = []
        }
        // Commands whose callback was opened before the kill are done: their files go before
        // anything can report idle.
        for command in stored where command.state.recovered.isFinished {
            do { try journal.remove(id: command.id) } catch { eventSink.yield(.journalFailed(error.description)) }
        }
        let toStart: [String] = state.withLock { registry in
            guard !registry.launched, !registry.terminated else { return [] }
            registry.launched = true
            var ids: [String] = []
            for var command in stored where registry.commands[command.id] == nil && !command.state.recovered.isFinished {
                command.state = command.state.recovered
                registry.commands[command.id] = command
                registry.stopwatches[command.id] = Stopwatch(clock: clock)
                if let ulc = try? command.callback() {
                    registry.inFlightByRequest[LogoutCommand.requestKey(ulc)] = command.id
                }
                ids.append(command.id)
            }
            ids += registry.waitingForLaunch
            registry.waitingForLaunch = []
            return ids
        }
        for id in toStart {
            if stored.contains(where: { $0.id == id }) { eventSink.yield(.recovered(id: id)) }
            start(id)
        }
        resumeIdleWaitersIfIdle()
    }

    /// Returns once every accepted command has been answered and its journal file removed, so
    /// the app may exit without leaving work behind. Before launch, it waits for
    /// ``appDidFinishLaunching()`` and the work it starts. After ``terminate()`` nothing more
    /// will happen: it returns at once.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { registry in
                if registry.terminated || (registry.launched && registry.isIdle) { return true }
                registry.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Stops the receiver as a force-quit would: running handlers are cancelled and nothing
    /// more is opened. The journal is left as it is, for the next launch.
    public func terminate() {
        let (tasks, waiters) = state.withLock { registry in
            registry.terminated = true
            let tasks = Array(registry.tasks.values)
            let waiters = registry.idleWaiters
            registry.tasks = [:]
            registry.idleWaiters = []
            return (tasks, waiters)
        }
        tasks.forEach { $0.cancel() }
        waiters.forEach { $0.resume() }
        eventSink.finish()
    }

    // MARK: Running

    private func start(_ id: String) {
        let task = Task { [self] in await run(id) }
        state.withLock { registry in
            if registry.terminated { task.cancel() } else { registry.tasks[id] = task }
        }
    }

    private func transition(_ id: String, _ event: CommandState.Event, persist: Bool = true) -> LogoutCommand? {
        let updated: LogoutCommand? = state.withLock { registry in
            guard !registry.terminated, var command = registry.commands[id],
                  let next = try? command.state.applying(event) else { return nil }
            command.state = next
            registry.commands[id] = command
            return command
        }
        if let updated, persist {
            do { try journal.save(updated) } catch { eventSink.yield(.journalFailed(error.description)) }
        }
        return updated
    }

    private func run(_ id: String) async {
        guard let (command, stopwatch) = state.withLock({ registry -> (LogoutCommand, Stopwatch)? in
            guard let command = registry.commands[id], let stopwatch = registry.stopwatches[id] else { return nil }
            return (command, stopwatch)
        }) else { return }
        let ulc: UniversalLinkCallback
        do { ulc = try command.callback() } catch {
            eventSink.yield(.journalFailed("command \(id) holds an unreadable link: \(error)"))
            return
        }
        guard var running = transition(id, .start) else { return }
        let answer = await perform(running, stopwatch: stopwatch, onRetry: { running = transition(id, .retry) ?? running })
        if Task.isCancelled { return }
        await reply(id, answer: answer, ulc: ulc)
    }

    private func perform(_ command: LogoutCommand, stopwatch: Stopwatch, onRetry: () -> Void) async -> CommandAnswer {
        let deadline = configuration.deadline
        var attempt = 1
        while true {
            let remaining = deadline - stopwatch.elapsed
            guard remaining > .zero else {
                eventSink.yield(.deadlinePassed(id: command.id))
                return .error("the logout did not finish within \(deadline)")
            }
            eventSink.yield(.attemptStarted(id: command.id, attempt: attempt))
            let handler = self.handler
            let result = await DeadlineRace.run(deadline: { try await stopwatch.sleep(untilElapsed: deadline) }) {
                try await handler.logOut(command)
            }
            switch result {
            case .finished:
                return .success
            case .timedOut:
                eventSink.yield(.deadlinePassed(id: command.id))
                return .error("the logout did not finish within \(deadline)")
            case .failed(let error):
                let failure = error as? LogoutFailure ?? LogoutFailure("\(error)", isRetryable: false)
                let wait = configuration.retry.backoff(after: attempt)
                let canRetry = failure.isRetryable && attempt < configuration.retry.maximumAttempts
                    && stopwatch.elapsed + wait < deadline
                eventSink.yield(.attemptFailed(id: command.id, attempt: attempt, reason: failure.message, retryIn: canRetry ? wait : nil))
                guard canRetry else { return .error(failure.message) }
                do { try await clock.sleep(for: wait) } catch { return .error("cancelled") }
                attempt += 1
                onRetry()
            }
        }
    }

    private func reply(_ id: String, answer: CommandAnswer, ulc: UniversalLinkCallback) async {
        let url = answer.kind == .success ? ulc.success : ulc.error
        let parameter = answer.kind == .success ? "ulc-success" : "ulc-error"
        do {
            try configuration.policy.checkCallback(url.absoluteString, parameter: parameter)
        } catch {
            guard transition(id, .callbackRefused(answer), persist: false) != nil else { return }
            eventSink.yield(.callbackRefused(id: id, answer: answer, reason: error.description))
            finish(id)
            return
        }
        guard !Task.isCancelled, !state.withLock({ $0.terminated }) else { return }
        let opened = await opener.open(url)
        // Copies that joined in flight are answered too (not journaled: after a kill the
        // command's callback is reopened once). Counting them closes the command to joiners,
        // in the same lock: a copy that comes later is a new command, not a joiner that
        // nobody would answer.
        let copies = state.withLock { registry in
            if let key = registry.inFlightByRequest.first(where: { $0.value == id })?.key {
                registry.inFlightByRequest[key] = nil
            }
            return registry.joiners.removeValue(forKey: id) ?? 0
        }
        for _ in 0..<copies where !Task.isCancelled { _ = await opener.open(url) }
        // A kill between open and this write reopens the callback at the next launch: the
        // guarantee is at-least-once.
        guard transition(id, .callbackOpened(answer)) != nil else { return }
        eventSink.yield(opened ? .callbackOpened(id: id, answer: answer, url: url) : .callbackNotOpened(id: id, url: url))
        _ = transition(id, .finish, persist: false)
        finish(id)
    }

    private func finish(_ id: String) {
        do { try journal.remove(id: id) } catch { eventSink.yield(.journalFailed(error.description)) }
        state.withLock { registry in
            registry.tasks[id] = nil
            registry.stopwatches[id] = nil
            registry.joiners[id] = nil
            if let key = registry.inFlightByRequest.first(where: { $0.value == id })?.key {
                registry.inFlightByRequest[key] = nil
            }
            registry.commands[id] = nil
        }
        resumeIdleWaitersIfIdle()
    }

    private func resumeIdleWaitersIfIdle() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { registry in
            guard registry.launched, registry.isIdle else { return [] }
            defer { registry.idleWaiters = [] }
            return registry.idleWaiters
        }
        waiters.forEach { $0.resume() }
    }
}
