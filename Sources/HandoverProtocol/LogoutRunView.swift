import Foundation

/// A logout run as the fleet API shows it (`GET /api/v1/logout-runs/{id}`, the run's event
/// stream, and the `run` of a webhook event): the server encodes it, the SDK decodes it.
public struct LogoutRunView: Sendable, Hashable, Codable {
    /// One target app's part of the run.
    public struct Item: Sendable, Hashable, Codable {
        public var id: UUID
        /// The registered app's id.
        public var appID: UUID
        /// The registered app's name.
        public var app: String
        /// Order in the run, from 0.
        public var position: Int
        public var status: LogoutItemState
        /// Links issued so far, the first included; the server reissues after a deadline.
        public var attempts: Int
        /// When the current link was issued.
        public var issuedAt: Date
        /// When the current link times out, counted from ``issuedAt``. A first link waiting for
        /// its turn is given the same time from its turn instead, when that began later (the
        /// last answer of an app before it in the run).
        public var deadlineAt: Date
        public var finishedAt: Date?
        /// Who reported the answer, once one was recorded.
        public var reportedBy: CallbackReporter?
        /// The ULC link to open now; only while the item is pending.
        public var link: String?
        /// The backend side: the logout token owed to the app's backend for the device's session,
        /// when the app has a back-channel logout URI and the run ended such a session.
        public var backend: BackendLogout?

        public init(id: UUID, appID: UUID, app: String, position: Int, status: LogoutItemState, attempts: Int,
                    issuedAt: Date, deadlineAt: Date, finishedAt: Date? = nil, reportedBy: CallbackReporter? = nil,
                    link: String? = nil) {
            self.id = id
            self.appID = appID
            self.app = app
            self.position = position
            self.status = status
            self.attempts = attempts
            self.issuedAt = issuedAt
            self.deadlineAt = deadlineAt
            self.finishedAt = finishedAt
            self.reportedBy = reportedBy
            self.link = link
        }

        /// The app's backend, told by OpenID Connect Back-Channel Logout.
        public struct BackendLogout: Sendable, Hashable, Codable {
            /// The backend's client id (the app's bundle id): the `aud` of the logout token.
            public var clientID: String
            public var state: BackChannelLogoutState
            /// Attempts made so far.
            public var attempts: Int
            /// The HTTP status of the last attempt, when it got an answer.
            public var lastStatusCode: Int?
            /// Why the last attempt failed: no HTTP answer (connection refused, timeout), or the
            /// start of the refusing answer.
            public var lastError: String?

            public init(clientID: String, state: BackChannelLogoutState, attempts: Int, lastStatusCode: Int? = nil,
                        lastError: String? = nil) {
                self.clientID = clientID
                self.state = state
                self.attempts = attempts
                self.lastStatusCode = lastStatusCode
                self.lastError = lastError
            }

            /// Still owed, after at least one failed attempt: the dashboard shows it as failing.
            ///
            /// An attempt is counted when it starts, so `attempts` alone does not say that one
            /// failed: a failed attempt leaves its answer's status or its error.
            public var isFailing: Bool { state == .pending && attempts > 0 && (lastStatusCode != nil || lastError != nil) }
        }

        /// Whether the item still waits for an answer.
        public var isPending: Bool { status == .pending }
    }

    public var id: UUID
    public var deviceID: UUID
    public var status: LogoutRunState
    public var createdAt: Date
    public var finishedAt: Date?
    public var items: [Item]

    public init(id: UUID, deviceID: UUID, status: LogoutRunState, createdAt: Date, finishedAt: Date? = nil, items: [Item]) {
        self.id = id
        self.deviceID = deviceID
        self.status = status
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.items = items
    }

    /// Whether the server still waits for some item.
    public var isRunning: Bool { status == .running }
}
