/// The life of one app's part of a logout run, as a value with every transition spelled out.
///
/// ```
/// pending ──callback success──▶ succeeded
///    │    ──callback error────▶ failed
///    │    ──deadline, resends left──▶ pending (reissued: attempts + 1, new nonce)
///    └────deadline, none left───────▶ timedOut
/// ```
/// Finished states accept nothing more: a replayed callback is refused, not recorded twice.
enum LogoutItemState: String, Sendable, Equatable, Codable, CaseIterable {
    case pending
    case succeeded
    case failed
    case timedOut = "timed_out"

    enum Event: Equatable {
        case callback(CallbackOutcome)
        case deadlinePassed(attempts: Int, maxReissues: Int)
    }

    enum Transition: Equatable {
        /// Move to a finished state.
        case finish(LogoutItemState)
        /// Stay pending with a new attempt.
        case reissue
        /// Nothing may happen: the item is finished.
        case refuse
    }

    func on(_ event: Event) -> Transition {
        switch (self, event) {
        case (.pending, .callback(.success)): return .finish(.succeeded)
        case (.pending, .callback(.error)): return .finish(.failed)
        case (.pending, .deadlinePassed(let attempts, let maxReissues)):
            return attempts <= maxReissues ? .reissue : .finish(.timedOut)
        case (.succeeded, _), (.failed, _), (.timedOut, _): return .refuse
        }
    }

    var isFinished: Bool { self != .pending }
}

/// Which callback an app opened.
enum CallbackOutcome: String, Sendable, Codable, CaseIterable {
    case success
    case error
}

/// The state of a whole run, from its items.
enum LogoutRunState: String, Sendable, Codable {
    case running
    case completed
    case failed

    init(items: [LogoutItemState]) {
        if items.contains(.pending) {
            self = .running
        } else if items.allSatisfy({ $0 == .succeeded }) {
            self = .completed
        } else {
            self = .failed
        }
    }
}
