/// `POST /api/v1/logout-runs/{id}/callbacks`: a callback URL the device's launcher received as a
/// universal link, reported so the server records the item's outcome.
public struct CallbackReport: Sendable, Hashable, Codable {
    /// The whole callback URL, as received (see ``CallbackURL``).
    public var url: String

    public init(url: String) {
        self.url = url
    }
}

/// The answer to a ``CallbackReport`` the server recorded.
public struct CallbackReportResult: Sendable, Hashable, Codable {
    /// Always true in a 200 answer (a refusal is an error body).
    public var recorded: Bool
    /// The item's state now: ``LogoutItemState/succeeded`` or ``LogoutItemState/failed``.
    public var status: LogoutItemState
    /// The app's name.
    public var app: String?

    public init(recorded: Bool, status: LogoutItemState, app: String?) {
        self.recorded = recorded
        self.status = status
        self.app = app
    }
}
