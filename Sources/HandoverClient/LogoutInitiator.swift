import Foundation
import LinkCallbacks

/// The launcher side of a Universal Link Callback: logs a list of apps out, one at a time.
///
/// ```swift
/// let initiator = try LogoutInitiator(
///     apps: [TargetApp(id: "mail", logoutAction: URL(string: "https://mail.example.com/logout")!)],
///     configuration: InitiatorConfiguration(callbackBase: URL(string: "https://launcher.example.com/ulc/cb")!),
///     opener: UIApplicationURLOpener(),
///     journal: InitiatorJournal(file: applicationSupport.appendingPathComponent("logout-run.json")))
/// // When a callback universal link arrives:  await initiator.handleCallback(url)
/// let report = await initiator.run()
/// ```
///
/// Each app's link carries callback URLs with a fresh 128-bit nonce per attempt. The initiator
/// opens the link, waits up to ``InitiatorConfiguration/timeout`` for the matching callback,
/// sends again up to ``InitiatorConfiguration/resends`` times after a timeout, and then marks
/// the app timed out. Callbacks with an unknown, used or mismatched nonce are refused. With
/// `verifySignedOut`, a success answer is checked (the `premature` case: an app that answers
/// before its logout finished is reported as failed). Every transition is journaled, so a
/// killed launcher resumes where it stopped (re-opening the link of an attempt in flight).
///
/// Apps without ULC are logged out by x-callback-url (a ``TargetApp`` whose action is
/// `pager://x-callback-url/logout`): the initiator adds `x-success`, `x-error` and `x-cancel`
/// with the attempt's nonce, and the answers take the same deadlines, resends and journal.
/// iOS asks the person before it opens a custom scheme; when it does not open the link (no app
/// declares the scheme, or the person declined), the app fails at once. With
/// ``InitiatorConfiguration/xCallbackReplyScheme`` the answers come back on the launcher's own
/// scheme through its ``XCallbackRouter``:
///
/// ```swift
/// let router = XCallbackRouter(scheme: "launcher", policy: policy, opener: opener)
/// initiator.takeReplies(through: router)
/// // When a launcher:// URL arrives:  await router.handle(url)
/// ```
public actor LogoutInitiator {
    /// Everything the initiator does, for the launcher's logging.
    public nonisolated let events: AsyncStream<InitiatorEvent>
    private let eventSink: AsyncStream<InitiatorEvent>.Continuation

    private let configuration: InitiatorConfiguration
    private let opener: any URLOpener
    private let journal: InitiatorJournal
    private let clock: any Clock<Duration>
    private let nonces: NonceSource
    private let now: @Sendable () -> Date
    private let verifySignedOut: (@Sendable (TargetApp) async -> Bool)?

    private var record: InitiatorJournal.Record
    private var settledNonces: Set<String> = []
    private var results: [String: AttemptResult] = [:]
    private var waiter: (nonce: String, continuation: CheckedContinuation<AttemptResult, Never>)?

    private enum AttemptResult: Sendable {
        case answered(CommandAnswer.Kind, detail: String? = nil)
        /// An x-callback app opened `x-cancel`.
        case cancelled
        /// iOS did not open an x-callback link.
        case notOpened
        case timedOut
    }

    /// Makes an initiator, resuming the journaled run when it is for the same apps.
    ///
    /// - Parameters:
    ///   - apps: the apps to log out, in order.
    ///   - configuration: the callback base, deadlines and resends.
    ///   - opener: opens each app's ULC link.
    ///   - journal: where the run is kept, so that it survives the launcher being killed.
    ///   - clock: measures deadlines; inject a test clock in tests.
    ///   - nonces: the source of each attempt's 128-bit nonce.
    ///   - now: the wall clock, for signed requests and the report.
    ///   - verifySignedOut: asked after a success answer; return `false` when the user
    ///     is still signed in, and the app is reported as failed.
    public init(apps: [TargetApp], configuration: InitiatorConfiguration, opener: any URLOpener,
                journal: InitiatorJournal, clock: any Clock<Duration> = ContinuousClock(), nonces: NonceSource = .system,
                now: @escaping @Sendable () -> Date = { Date() },
                verifySignedOut: (@Sendable (TargetApp) async -> Bool)? = nil) throws(JournalError) {
        self.configuration = configuration
        self.opener = opener
        self.journal = journal
        self.clock = clock
        self.nonces = nonces
        self.now = now
        self.verifySignedOut = verifySignedOut
        (events, eventSink) = AsyncStream.makeStream(of: InitiatorEvent.self, bufferingPolicy: .bufferingNewest(1000))
        if let stored = try journal.load(), stored.apps.map(\.app) == apps {
            record = stored
            eventSink.yield(.resumed(runID: stored.runID))
        } else {
            record = InitiatorJournal.Record(runID: nonces.next(), apps: apps.map { AppLogoutState(app: $0) })
            try journal.save(record)
        }
    }

    /// The run's identifier, part of every callback URL.
    public var runID: String { record.runID }

    /// Each app's state, in order.
    public var states: [AppLogoutState] { record.apps }

    /// Logs every app out in turn and reports how each ended.
    public func run() async -> LogoutReport {
        for index in record.apps.indices {
            await drive(index)
        }
        return report
    }

    /// The report so far: settled apps only.
    public var report: LogoutReport {
        LogoutReport(runID: record.runID, entries: record.apps.compactMap { state in
            guard let outcome = state.outcome(resends: configuration.resends) else { return nil }
            var reason: String?
            if case .failed(_, let why) = state.phase { reason = why }
            return LogoutReport.Entry(app: state.app.id, outcome: outcome, attempts: state.attempts,
                                      durationMilliseconds: state.elapsedMilliseconds, reason: reason)
        })
    }

    // MARK: Callbacks

    /// Takes a callback URL: `true` when it answered an attempt in flight.
    @discardableResult
    public func handleCallback(_ url: URL) -> Bool {
        do {
            try acceptCallback(url)
            return true
        } catch {
            eventSink.yield(.callbackRejected(url: url.absoluteString, reason: error))
            return false
        }
    }

    /// Like ``handleCallback(_:)``, with the reason for refusing.
    public func acceptCallback(_ url: URL) throws(CallbackRejection) {
        let parsed = try CallbackAddress(url, base: configuration.callbackBase)
        try accept(runID: parsed.runID, appID: parsed.appID, nonce: parsed.nonce, as: .answered(parsed.kind))
    }

    /// Takes an x-callback app's answer on the launcher's scheme
    /// (`launcher://x-callback-url/handover-logout-reply?…`), refusing it as ``acceptCallback(_:)``
    /// refuses a callback.
    public func acceptXCallbackReply(_ request: XCallbackRequest) throws(CallbackRejection) {
        if let scheme = configuration.xCallbackReplyScheme, request.scheme.lowercased() != scheme.lowercased() {
            throw .notACallback("its scheme is \(request.scheme), not \(scheme)")
        }
        let reply = try XCallbackReplyAddress(request)
        let result: AttemptResult = switch reply.answer {
        case .success: .answered(.success)
        case .error: .answered(.error, detail: reply.errorDetail)
        case .cancel: .cancelled
        }
        try accept(runID: reply.runID, appID: reply.appID, nonce: reply.nonce, as: result)
    }

    /// Registers the reply action on the launcher's router, so that x-callback apps' answers
    /// reach this initiator. A refused answer is reported as an ``InitiatorEvent/callbackRejected(url:reason:)``
    /// and its own `x-error` (if any) is opened with code 403.
    public nonisolated func takeReplies(through router: XCallbackRouter) {
        router.register(XCallbackReplyAddress.action) { [weak self] request in
            guard let self else { return .failure(code: 410, message: "the logout run is over") }
            do throws(CallbackRejection) {
                try await self.acceptXCallbackReply(request)
                return .success([:])
            } catch {
                await self.reportRejected(request.text, error)
                return .failure(code: 403, message: error.description)
            }
        }
    }

    private func reportRejected(_ url: String, _ reason: CallbackRejection) {
        eventSink.yield(.callbackRejected(url: url, reason: reason))
    }

    private func accept(runID: String, appID: String, nonce: String, as result: AttemptResult) throws(CallbackRejection) {
        guard let index = record.apps.firstIndex(where: {
            if case .sent(_, let sent) = $0.phase { return sent == nonce }
            return false
        }) else {
            if record.apps.contains(where: { $0.usedNonces.contains(nonce) }) { throw .usedNonce }
            throw .unknownNonce
        }
        guard runID == record.runID, appID == record.apps[index].app.id else { throw .mismatchedNonce }
        guard !settledNonces.contains(nonce) else { throw .usedNonce }
        settle(nonce, result)
    }

    // MARK: Running one app

    private func drive(_ index: Int) async {
        while record.apps[index].outcome(resends: configuration.resends) == nil {
            let nonce: String
            switch record.apps[index].phase {
            case .pending:
                nonce = nonces.next()
                apply(index, .send(nonce: nonce))
            case .timedOut:
                nonce = nonces.next()
                apply(index, .resend(nonce: nonce))
            case .sent(_, let inFlight):
                nonce = inFlight  // resumed after a kill: open the same link again
            case .succeeded, .failed:
                return
            }
            let app = record.apps[index].app
            let link: URL
            do {
                link = try makeLink(app: app, nonce: nonce)
            } catch {
                apply(index, .fail(reason: "its logout link could not be built: \(error)"))
                continue
            }
            eventSink.yield(.sent(app: app.id, attempt: record.apps[index].attempts, link: link))
            let stopwatch = Stopwatch(clock: clock)
            let timeout = configuration.timeout
            let clock = self.clock
            let timer = Task { [weak self] in
                do { try await clock.sleep(for: timeout) } catch { return }
                await self?.settle(nonce, .timedOut)
            }
            if !(await opener.open(link)), app.logoutMethod == .xCallback {
                settle(nonce, .notOpened)
            }
            let result = await outcome(of: nonce)
            timer.cancel()
            let elapsed = stopwatch.elapsed
            record.apps[index].elapsedMilliseconds += elapsed.components.seconds * 1000
                + elapsed.components.attoseconds / 1_000_000_000_000_000
            switch result {
            case .answered(.success, _):
                if let verifySignedOut, !(await verifySignedOut(app)) {
                    apply(index, .fail(reason: "it answered success, but the user is still signed in"))
                } else {
                    apply(index, .succeed)
                }
            case .answered(.error, let detail):
                apply(index, .fail(reason: "it opened its error URL" + (detail.map { " (\($0))" } ?? "")))
            case .cancelled:
                apply(index, .fail(reason: "it opened its x-cancel URL: the person cancelled the logout in the app"))
            case .notOpened:
                apply(index, .fail(reason: "iOS did not open its x-callback link: no installed app declares the scheme "
                    + "\(app.logoutAction.scheme ?? ""), or the person declined iOS's prompt"))
            case .timedOut:
                eventSink.yield(.timedOut(app: app.id, attempt: record.apps[index].attempts))
                apply(index, .timeOut)
            }
            if let outcome = record.apps[index].outcome(resends: configuration.resends) {
                var reason: String?
                if case .failed(_, let why) = record.apps[index].phase { reason = why }
                eventSink.yield(.answered(app: app.id, outcome: outcome, reason: reason))
            }
        }
    }

    private func apply(_ index: Int, _ event: AppLogoutState.Event) {
        do {
            record.apps[index] = try record.apps[index].applying(event)
        } catch {
            eventSink.yield(.journalFailed("internal: \(error)"))
            return
        }
        do { try journal.save(record) } catch { eventSink.yield(.journalFailed(error.description)) }
    }

    private func makeLink(app: TargetApp, nonce: String) throws -> URL {
        let base = configuration.callbackBase.absoluteString.hasSuffix("/")
            ? String(configuration.callbackBase.absoluteString.dropLast()) : configuration.callbackBase.absoluteString
        let path = "\(base)/\(PercentEncoding.encodeUnreserved(record.runID))/\(PercentEncoding.encodeUnreserved(app.id))"
        guard let success = URL(string: "\(path)/success?n=\(nonce)"), let error = URL(string: "\(path)/error?n=\(nonce)") else {
            throw CallbackRejection.notACallback("the callback base \(base) does not make a URL")
        }
        if app.logoutMethod == .xCallback {
            var request = try XCallbackRequest(parsing: app.logoutAction.absoluteString)
            if let scheme = configuration.xCallbackReplyScheme {
                func reply(_ answer: XCallbackReplyAddress.Answer) throws -> URL {
                    guard let url = XCallbackReplyAddress.url(scheme: scheme, runID: record.runID, appID: app.id, answer: answer,
                                                              nonce: nonce) else {
                        throw CallbackRejection.notACallback("the reply scheme \(scheme) does not make a URL")
                    }
                    return url
                }
                (request.success, request.error, request.cancel) = (try reply(.success), try reply(.error), try reply(.cancel))
            } else {
                (request.success, request.error, request.cancel) = (success, error, error)
            }
            guard let url = request.url else { throw CallbackRejection.notACallback("the x-callback link does not make a URL") }
            return url
        }
        var ulc = try UniversalLinkCallback(action: app.logoutAction, success: success, error: error)
        if let signer = configuration.signer {
            ulc = try signer.sign(ulc, timestamp: Int64(now().timeIntervalSince1970.rounded(.down)))
        }
        return ulc.url
    }

    // MARK: Waiting

    private func settle(_ nonce: String, _ result: AttemptResult) {
        guard !settledNonces.contains(nonce) else { return }
        settledNonces.insert(nonce)
        if let waiter, waiter.nonce == nonce {
            self.waiter = nil
            waiter.continuation.resume(returning: result)
        } else {
            results[nonce] = result
        }
    }

    private func outcome(of nonce: String) async -> AttemptResult {
        if let result = results.removeValue(forKey: nonce) { return result }
        return await withCheckedContinuation { continuation in
            waiter = (nonce, continuation)
        }
    }
}

/// A callback URL taken apart: `<base>/<run>/<app>/success|error?n=<nonce>`.
struct CallbackAddress: Equatable {
    var runID: String
    var appID: String
    var kind: CommandAnswer.Kind
    var nonce: String

    init(_ url: URL, base: URL) throws(CallbackRejection) {
        var prefix = base.absoluteString
        if !prefix.hasSuffix("/") { prefix += "/" }
        let text = url.absoluteString
        guard text.hasPrefix(prefix) else { throw .notACallback("it is not under \(prefix)") }
        let rest = text.dropFirst(prefix.count)
        let pathAndQuery = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let parts = pathAndQuery[0].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let run = PercentEncoding.decode(parts[0]), let app = PercentEncoding.decode(parts[1]) else {
            throw .notACallback("the path is not <run>/<app>/success|error")
        }
        guard let kind = CommandAnswer.Kind(rawValue: String(parts[2])) else {
            throw .notACallback("it ends in '\(parts[2])', not success or error")
        }
        let query = pathAndQuery.count > 1 ? pathAndQuery[1] : ""
        let nonces = query.split(separator: "&").compactMap { item -> String? in
            let pair = item.split(separator: "=", maxSplits: 1)
            return pair.count == 2 && pair[0] == "n" ? PercentEncoding.decode(pair[1]) : nil
        }
        guard nonces.count == 1, let nonce = nonces.first, !nonce.isEmpty else {
            throw .notACallback("it has no single n= nonce")
        }
        runID = run
        appID = app
        self.kind = kind
        self.nonce = nonce
    }
}
