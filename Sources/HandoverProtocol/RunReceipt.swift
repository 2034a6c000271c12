import Foundation

/// What a hand-over's receipt says: the claims of the JWS the server signs when a run ends,
/// completed or failed (`typ` `handover-receipt+jwt`, ES256, its `kid` in the server's JWKS).
///
/// Times are RFC 3339 strings in UTC with milliseconds, except `iat` (seconds since 1970, as JWT
/// says). The server, `handover audit verify-receipt` and any app that reads a webhook share
/// this one type.
public struct RunReceipt: Codable, Sendable, Equatable {
    /// The JWS `typ` header of a receipt.
    public static let headerType = "handover-receipt+jwt"

    /// The server that signed it: its issuer, as in its OpenID discovery document.
    public var iss: String
    /// When it was signed, in seconds since 1970.
    public var iat: Int
    /// The receipt's id: the run's id.
    public var jti: String
    /// The version of Handover that signed it.
    public var handoverVersion: String
    public var run: Run
    public var device: Device
    /// Who held the device when the hand-over started (custody); nil when nobody had checked it out.
    public var holder: Holder?
    public var apps: [App]
    /// The MDM command the hand-over's outcome queued (a failed run), as it stood when the run ended.
    public var mdm: MDMCommand?

    public init(iss: String, iat: Int, jti: String, handoverVersion: String, run: Run, device: Device, holder: Holder?,
                apps: [App], mdm: MDMCommand?) {
        self.iss = iss
        self.iat = iat
        self.jti = jti
        self.handoverVersion = handoverVersion
        self.run = run
        self.device = device
        self.holder = holder
        self.apps = apps
        self.mdm = mdm
    }

    enum CodingKeys: String, CodingKey {
        case iss, iat, jti, run, device, holder, apps, mdm
        case handoverVersion = "handover_version"
    }

    /// The run.
    public struct Run: Codable, Sendable, Equatable {
        public var id: UUID
        public var status: LogoutRunState
        public var startedAt: String
        public var finishedAt: String

        public init(id: UUID, status: LogoutRunState, startedAt: String, finishedAt: String) {
            self.id = id
            self.status = status
            self.startedAt = startedAt
            self.finishedAt = finishedAt
        }

        enum CodingKeys: String, CodingKey {
            case id, status
            case startedAt = "started_at"
            case finishedAt = "finished_at"
        }
    }

    /// The device handed over.
    public struct Device: Codable, Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var site: String?

        public init(id: UUID, name: String, site: String?) {
            self.id = id
            self.name = name
            self.site = site
        }
    }

    /// The person who held the device, by issuer and subject only (a name is not a proof's business).
    public struct Holder: Codable, Sendable, Equatable {
        /// The issuer of the person's Handover session (this server).
        public var iss: String
        /// The person's Handover user id.
        public var sub: String
        public var checkedOutAt: String
        /// How the device was checked out: `badge`, `access-token`, `sign-in`.
        public var checkedOutBy: String

        public init(iss: String, sub: String, checkedOutAt: String, checkedOutBy: String) {
            self.iss = iss
            self.sub = sub
            self.checkedOutAt = checkedOutAt
            self.checkedOutBy = checkedOutBy
        }

        enum CodingKeys: String, CodingKey {
            case iss, sub
            case checkedOutAt = "checked_out_at"
            case checkedOutBy = "checked_out_by"
        }
    }

    /// One app of the run.
    public struct App: Codable, Sendable, Equatable {
        public var id: UUID
        public var name: String
        /// `ulc`, `x-callback` or `backend-only`.
        public var method: LogoutMethod
        /// `succeeded`, `failed` or `timed_out`.
        public var outcome: LogoutItemState
        public var attempts: Int
        /// How the answer arrived: `launcher`, `browser` (the callback page), `deadline` (none
        /// arrived in time) or `back-channel` (a backend-only app, finished by its token's delivery).
        public var answeredBy: String
        public var finishedAt: String?
        /// The app's backend, told by a Back-Channel Logout token.
        public var backend: Backend?

        public init(id: UUID, name: String, method: LogoutMethod, outcome: LogoutItemState, attempts: Int, answeredBy: String,
                    finishedAt: String?, backend: Backend?) {
            self.id = id
            self.name = name
            self.method = method
            self.outcome = outcome
            self.attempts = attempts
            self.answeredBy = answeredBy
            self.finishedAt = finishedAt
            self.backend = backend
        }

        enum CodingKeys: String, CodingKey {
            case id, name, method, outcome, attempts, backend
            case answeredBy = "answered_by"
            case finishedAt = "finished_at"
        }
    }

    /// A backend's logout token: `delivered`, `refused`, `failed` or still `pending`, with the
    /// last HTTP status its backend answered.
    public struct Backend: Codable, Sendable, Equatable {
        public var clientID: String
        public var delivery: BackChannelLogoutState
        public var attempts: Int
        public var statusCode: Int?

        public init(clientID: String, delivery: BackChannelLogoutState, attempts: Int, statusCode: Int?) {
            self.clientID = clientID
            self.delivery = delivery
            self.attempts = attempts
            self.statusCode = statusCode
        }

        enum CodingKeys: String, CodingKey {
            case delivery, attempts
            case clientID = "client_id"
            case statusCode = "status_code"
        }
    }

    /// An MDM command.
    public struct MDMCommand: Codable, Sendable, Equatable {
        public var action: MDMAction
        public var connector: String
        public var status: MDMCommandState

        public init(action: MDMAction, connector: String, status: MDMCommandState) {
            self.action = action
            self.connector = connector
            self.status = status
        }
    }
}

extension RunReceipt {
    /// Formats a time as receipts and audit entries write it: RFC 3339, UTC, milliseconds.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
