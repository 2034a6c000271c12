import Foundation
import OutOfBand

/// How an answered operation ended, and where the phone goes next (seed 004's x-callback rules).
public enum OperationResult: Sendable {
    /// The server accepted the approval. With an `x-success` target, `countdown` is already
    /// running and opens it when it ends; show its ``SuccessCountdown/remaining`` on a Continue
    /// button that calls ``SuccessCountdown/openNow()``.
    case approved(countdown: SuccessCountdown?)
    /// The user denied. The `x-cancel` target, if any, was opened at once; `opened` is false when
    /// the system refused it (show an error screen then). `recorded` says whether the server took
    /// the denial (otherwise the operation simply expires).
    case denied(cancelTarget: URL?, opened: Bool, recorded: Bool)
    /// The operation failed. Nothing was opened: show `failure`, and offer `errorReturn` (the
    /// `x-error` target with `errorCode` and `errorMessage`) on a button, for the user to tap
    /// when they have read it.
    case failed(OperationFailure, errorReturn: ErrorReturn?)
}

/// Why an answered operation failed.
public enum OperationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation expired before the user answered; nothing was sent.
    case expired(at: Date)
    /// The server refused the answer: its status and `{"error","reason"}`.
    case rejected(status: Int, code: String, reason: String)
    /// The server could not be reached; the user may try again.
    case unreachable(String)

    /// The `errorCode` sent to the `x-error` target.
    public var code: String {
        switch self {
        case .expired: "expired"
        case .rejected(_, let code, _): code
        case .unreachable: "unreachable"
        }
    }

    public var description: String {
        switch self {
        case .expired(let at): "This request expired at \(at.formatted(date: .omitted, time: .standard)). Start again on the other screen."
        case .rejected(_, _, let reason): "The server refused the answer: \(reason)"
        case .unreachable(let detail): "The server could not be reached (\(detail)). Check the connection and try again."
        }
    }
}

/// The `x-error` target, for the user to open after reading the error.
public struct ErrorReturn: Sendable {
    /// The target with `errorCode` and `errorMessage` appended, as x-callback-url asks.
    public let target: URL
    private let opener: any URLOpener

    init(target: URL, opener: any URLOpener) {
        self.target = target
        self.opener = opener
    }

    /// Opens the target; returns whether the system accepted it.
    public func open() async -> Bool { await opener.open(target) }
}

/// The countdown on the success screen: it opens the `x-success` target when it ends, unless
/// the user continues at once or chooses to stay.
public final class SuccessCountdown: Sendable {
    public enum State: Sendable, Equatable {
        case counting
        /// The target was opened (by the countdown or by ``openNow()``); `accepted` is the system's answer.
        case opened(accepted: Bool)
        /// The user chose to stay; nothing is opened.
        case stopped
    }

    public let target: URL
    public let duration: Duration
    private let stopwatch: Stopwatch
    private let opener: any URLOpener
    private let state = Protected<State>(.counting)
    private let timer = Protected<Task<Void, Never>?>(nil)

    init(target: URL, duration: Duration, clock: any Clock<Duration>, opener: any URLOpener) {
        self.target = target
        self.duration = duration
        self.opener = opener
        stopwatch = Stopwatch(clock: clock)
        // Holds the countdown strongly until it fires or is stopped, so an app that drops the
        // object still gets the switch the user was promised.
        let task = Task { [stopwatch, self] in
            do { try await stopwatch.sleep(untilElapsed: duration) } catch { return }
            _ = await self.open()
        }
        timer.withLock { $0 = task }
    }

    /// What happened so far.
    public var currentState: State { state.withLock { $0 } }

    /// Time left before the target opens (zero once it has).
    public var remaining: Duration { max(.zero, duration - stopwatch.elapsed) }

    /// The Continue button: opens the target now. Returns whether this call opened it.
    @discardableResult
    public func openNow() async -> Bool {
        timer.withLock { $0?.cancel() }
        return await open()
    }

    /// Stays on the success screen: the target is not opened.
    public func stop() {
        let stopped = state.withLock { state -> Bool in
            guard state == .counting else { return false }
            state = .stopped
            return true
        }
        if stopped { timer.withLock { $0?.cancel() } }
    }

    /// Waits until the countdown ends, is stopped, or the target opens.
    public func finished() async -> State {
        let task = timer.withLock { $0 }
        await task?.value
        return currentState
    }

    private func open() async -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard state == .counting else { return false }
            state = .opened(accepted: false)
            return true
        }
        guard claimed else { return false }
        let accepted = await opener.open(target)
        state.withLock { $0 = .opened(accepted: accepted) }
        return true
    }
}
