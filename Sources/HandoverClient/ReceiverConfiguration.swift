import LinkCallbacks

/// How a ``LogoutReceiver`` checks links and runs the app's logout.
public struct ReceiverConfiguration: Sendable {
    /// The longest time the spec allows a logout to take.
    public static let maximumDeadline: Duration = .seconds(20)

    /// Which links are acted on and which callbacks are opened. Use
    /// `CallbackPolicy(allowedHosts: …)` to name your launchers, and `allowsLoopbackHTTP` only
    /// in developer mode.
    public var policy: CallbackPolicy
    /// Time from accepting a link to opening its callback: 20 s by default, and never more
    /// (a longer value is lowered to 20 s).
    public var deadline: Duration {
        get { storedDeadline }
        set { storedDeadline = min(max(newValue, .zero), Self.maximumDeadline) }
    }
    private var storedDeadline: Duration
    /// How retryable failures are retried inside the deadline.
    public var retry: RetryPolicy
    /// Signed-requests extension: the keys to trust. `nil` (the default) ignores `ulc-ts` and
    /// `ulc-sig`, like any plain ULC target.
    public var verifier: RequestVerifier?
    /// With a ``verifier``: refuse links that are unsigned, altered or older than 60 s.
    public var requireSignedRequests: Bool

    public init(policy: CallbackPolicy = .default, deadline: Duration = .seconds(20), retry: RetryPolicy = RetryPolicy(),
                verifier: RequestVerifier? = nil, requireSignedRequests: Bool = false) {
        self.policy = policy
        self.storedDeadline = min(max(deadline, .zero), Self.maximumDeadline)
        self.retry = retry
        self.verifier = verifier
        self.requireSignedRequests = requireSignedRequests
    }
}
