import Foundation
import HandoverProtocol

/// An event a webhook receives.
package struct WebhookEventPayload: Codable, Equatable {
    package var id: UUID
    package var type: String
    package var createdAt: Date
    package var run: LogoutRunView?
    package var deviceID: UUID?
    /// For `device.back_in_service`, the admin's note; for `device.overdue` and
    /// `device.out_of_service`, why.
    package var reason: String?
    /// For `operation.suspicious`: the sign-in the person said was not theirs.
    package var operation: SuspiciousOperation?
    /// For `run.completed` and `run.failed`: the run's signed receipt (a compact JWS, `typ`
    /// `handover-receipt+jwt`), verifiable with the server's JWKS.
    package var receipt: String?
    /// For `audit.checkpoint`: the signed checkpoint, and the consistency proof from the one
    /// before, so that an older copy of the log's checkpoints lives where the database does not.
    package var checkpoint: AuditCheckpointEvent?
    /// For `device.alert`: the alert, with the link to the device's page.
    package var alert: DeviceAlertEvent?
}

/// A device's alert, as the `device.alert` webhook tells it.
package struct DeviceAlertEvent: Codable, Equatable, Sendable {
    package var id: UUID
    package var cause: DeviceAlertCause
    package var deviceName: String
    package var site: String?
    /// Why, in words.
    package var detail: String
    package var raisedAt: Date
    /// The device's dashboard page, where the alert is acknowledged.
    package var page: String

    package init(id: UUID, cause: DeviceAlertCause, deviceName: String, site: String?, detail: String, raisedAt: Date, page: String) {
        self.id = id
        self.cause = cause
        self.deviceName = deviceName
        self.site = site
        self.detail = detail
        self.raisedAt = raisedAt
        self.page = page
    }
}

/// An out-of-band operation reported as "this was not me", as the webhook tells it.
package struct SuspiciousOperation: Codable, Equatable {
    package var id: UUID
    package var type: String
    package var user: String
    /// The phone that reported it.
    package var deviceID: String
    package var reportedAt: Date

    package init(id: UUID, type: String, user: String, deviceID: String, reportedAt: Date) {
        self.id = id
        self.type = type
        self.user = user
        self.deviceID = deviceID
        self.reportedAt = reportedAt
    }
}
