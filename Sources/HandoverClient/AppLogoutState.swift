/// One app's progress in a logout run, as a value with explicit transitions:
///
/// ```
/// pending ─send─▶ sent(1) ─succeed─▶ succeeded
///                   │ ─fail─▶ failed
///                   │ ─timeOut─▶ timedOut(1) ─resend─▶ sent(2) … (up to 1 + resends attempts)
/// ```
public struct AppLogoutState: Sendable, Equatable, Codable {
    /// Where the app is.
    public enum Phase: Sendable, Equatable, Codable {
        case pending
        case sent(attempt: Int, nonce: String)
        case timedOut(attempts: Int)
        case succeeded(attempts: Int)
        case failed(attempts: Int, reason: String)
    }

    /// What happens to an app.
    public enum Event: Sendable, Equatable {
        case send(nonce: String)
        case succeed
        case fail(reason: String)
        case timeOut
        case resend(nonce: String)
    }

    public var app: TargetApp
    public var phase: Phase
    /// Nonces of earlier attempts: a callback carrying one is refused as used.
    public var usedNonces: [String]
    /// Time spent on this app so far, in milliseconds of the injected clock.
    public var elapsedMilliseconds: Int64

    public init(app: TargetApp, phase: Phase = .pending, usedNonces: [String] = [], elapsedMilliseconds: Int64 = 0) {
        self.app = app
        self.phase = phase
        self.usedNonces = usedNonces
        self.elapsedMilliseconds = elapsedMilliseconds
    }

    /// The state after `event`, or an ``AppTransitionError`` when it cannot happen now.
    public func applying(_ event: Event) throws(AppTransitionError) -> AppLogoutState {
        var next = self
        switch (phase, event) {
        case (.pending, .send(let nonce)):
            next.phase = .sent(attempt: 1, nonce: nonce)
        case (.sent(let attempt, let nonce), .succeed):
            next.phase = .succeeded(attempts: attempt)
            next.usedNonces.append(nonce)
        case (.sent(let attempt, let nonce), .fail(let reason)):
            next.phase = .failed(attempts: attempt, reason: reason)
            next.usedNonces.append(nonce)
        case (.sent(let attempt, let nonce), .timeOut):
            next.phase = .timedOut(attempts: attempt)
            next.usedNonces.append(nonce)
        case (.timedOut(let attempts), .resend(let nonce)):
            next.phase = .sent(attempt: attempts + 1, nonce: nonce)
        case (.pending, _), (.sent, _), (.timedOut, _), (.succeeded, _), (.failed, _):
            throw AppTransitionError(phase: phase, event: event)
        }
        return next
    }

    /// The outcome once the app is settled, given how many resends are allowed; `nil` while
    /// work remains.
    public func outcome(resends: Int) -> LogoutReport.Outcome? {
        switch phase {
        case .pending, .sent: nil
        case .succeeded: .succeeded
        case .failed: .failed
        case .timedOut(let attempts): attempts >= 1 + resends ? .timedOut : nil
        }
    }

    /// Attempts made so far.
    public var attempts: Int {
        switch phase {
        case .pending: 0
        case .sent(let attempt, _): attempt
        case .timedOut(let attempts), .succeeded(let attempts), .failed(let attempts, _): attempts
        }
    }
}

/// An event that cannot happen in an app's current phase.
public struct AppTransitionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var phase: AppLogoutState.Phase
    public var event: AppLogoutState.Event

    public var description: String { "an app in phase \(phase) cannot take the event \(event)" }
}
