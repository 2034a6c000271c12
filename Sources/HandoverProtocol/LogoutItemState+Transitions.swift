extension LogoutItemState {
    /// What can happen to a pending item.
    public enum Event: Sendable, Equatable {
        /// The app opened one of its callback URLs.
        case callback(CallbackOutcome)
        /// The item's deadline passed after `attempts` links, with `maxReissues` reissues allowed.
        case deadlinePassed(attempts: Int, maxReissues: Int)
    }

    /// What the state machine decides for an event.
    public enum Transition: Sendable, Equatable {
        /// Move to a finished state.
        case finish(LogoutItemState)
        /// Stay pending with a new attempt.
        case reissue
        /// Nothing may happen: the item is finished.
        case refuse
    }

    /// The transition an event causes.
    ///
    /// ```
    /// pending ──callback success──▶ succeeded
    ///    │    ──callback error────▶ failed
    ///    │    ──deadline, reissues left──▶ pending (reissued: attempts + 1, new nonce)
    ///    └────deadline, none left────────▶ timedOut
    /// ```
    /// Finished states accept nothing more: a replayed callback is refused, not recorded twice.
    public func on(_ event: Event) -> Transition {
        switch (self, event) {
        case (.pending, .callback(.success)): .finish(.succeeded)
        case (.pending, .callback(.error)): .finish(.failed)
        case (.pending, .deadlinePassed(let attempts, let maxReissues)):
            attempts <= maxReissues ? .reissue : .finish(.timedOut)
        case (.succeeded, _), (.failed, _), (.timedOut, _): .refuse
        }
    }

    /// Whether the item has its answer (or has given up waiting for one).
    public var isFinished: Bool { self != .pending }

    /// How the item ended; nil while it is pending.
    public var outcome: AppLogoutOutcome? {
        switch self {
        case .pending: nil
        case .succeeded: .succeeded
        case .failed: .failed
        case .timedOut: .timedOut
        }
    }

    /// The state a callback with this outcome finishes an item in.
    public init(finishedBy outcome: CallbackOutcome) {
        self = outcome == .success ? .succeeded : .failed
    }
}

extension LogoutRunState {
    /// A run's state from its items' states: running while any is pending, then completed when
    /// every item succeeded, failed otherwise.
    public init(items: [LogoutItemState]) {
        if items.contains(.pending) {
            self = .running
        } else if items.allSatisfy({ $0 == .succeeded }) {
            self = .completed
        } else {
            self = .failed
        }
    }

    /// Whether the run has ended (completed or failed).
    public var isFinished: Bool { self != .running }
}
