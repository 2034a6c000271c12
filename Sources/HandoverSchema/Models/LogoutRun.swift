import FluentKit
import Foundation
import HandoverProtocol

/// One shift handover on one device: log out every app, one item per app.
package final class LogoutRun: Model, @unchecked Sendable {
    package static let schema = "logout_runs"

    @ID(key: .id) package var id: UUID?
    @Field(key: "device_id") package var deviceID: UUID
    @Field(key: "status") package var status: LogoutRunState
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "finished_at") package var finishedAt: Date?

    package init() {}
}

/// One app's part of a run.
package final class LogoutItem: Model, @unchecked Sendable {
    package static let schema = "logout_items"

    @ID(key: .id) package var id: UUID?
    @Field(key: "run_id") package var runID: UUID
    @Field(key: "app_id") package var appID: UUID
    @Field(key: "app_name") package var appName: String
    @Field(key: "position") package var position: Int
    @Field(key: "status") package var status: LogoutItemState
    /// How many times the link was issued: 1, then one more per reissue.
    @Field(key: "attempts") package var attempts: Int
    @Field(key: "deadline_at") package var deadlineAt: Date
    @Field(key: "issued_at") package var issuedAt: Date
    @OptionalField(key: "finished_at") package var finishedAt: Date?
    @OptionalField(key: "reported_by") package var reportedBy: CallbackReporter?
    /// How the app was to be logged out when the run started (nil for items written before
    /// the run kept it).
    @OptionalField(key: "logout_method") package var logoutMethod: LogoutMethod?
    /// Optimistic-concurrency counter: every change is `… WHERE version = ?`, so two server
    /// instances never both act on the same deadline or callback.
    @Field(key: "version") package var version: Int

    package init() {}
}

/// A server-wide value generated once and shared by every instance through the database.
package final class ServerSetting: Model, @unchecked Sendable {
    package static let schema = "server_settings"

    @ID(custom: "key", generatedBy: .user) package var id: String?
    @Field(key: "value") package var value: String

    package init() {}

    package init(key: String, value: String) {
        self.id = key
        self.value = value
    }
}
