import Foundation

/// Where the phone goes after answering, in x-callback-url terms (seed 004):
///
/// - `success`: opened automatically after a short countdown;
/// - `error`: shown to the user, opened only when they tap (so they can read what went wrong);
/// - `cancel`: opened at once when the user denies.
///
/// Each is optional; with none, the app stays on its result screen. Targets may come from the
/// link (`x-success`, `x-error`, `x-cancel`) or from the envelope; the app checks every one
/// against its allowlist before opening it.
public struct CallbackTargets: Sendable, Hashable, Codable {
    public var success: URL?
    public var error: URL?
    public var cancel: URL?

    public init(success: URL? = nil, error: URL? = nil, cancel: URL? = nil) {
        self.success = success
        self.error = error
        self.cancel = cancel
    }

    /// Whether no target is set.
    public var isEmpty: Bool { success == nil && error == nil && cancel == nil }

    /// These targets, with each one `other` sets taking precedence.
    public func overridden(by other: CallbackTargets) -> CallbackTargets {
        CallbackTargets(success: other.success ?? success, error: other.error ?? error, cancel: other.cancel ?? cancel)
    }
}
