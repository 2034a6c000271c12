import Fluent
import Foundation
import HandoverProtocol

/// One shift handover on one device: log out every app, one item per app.
final class LogoutRun: Model, @unchecked Sendable {
    static let schema = "logout_runs"

    @ID(key: .id) var id: UUID?
    @Field(key: "device_id") var deviceID: UUID
    @Field(key: "status") var status: LogoutRunState
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "finished_at") var finishedAt: Date?

    init() {}
}

/// One app's part of a run.
final class LogoutItem: Model, @unchecked Sendable {
    static let schema = "logout_items"

    @ID(key: .id) var id: UUID?
    @Field(key: "run_id") var runID: UUID
    @Field(key: "app_id") var appID: UUID
    @Field(key: "app_name") var appName: String
    @Field(key: "position") var position: Int
    @Field(key: "status") var status: LogoutItemState
    /// How many times the link was issued: 1, then one more per reissue.
    @Field(key: "attempts") var attempts: Int
    @Field(key: "deadline_at") var deadlineAt: Date
    @Field(key: "issued_at") var issuedAt: Date
    @OptionalField(key: "finished_at") var finishedAt: Date?
    @OptionalField(key: "reported_by") var reportedBy: CallbackReporter?
    /// Optimistic-concurrency counter: every change is `… WHERE version = ?`, so two server
    /// instances never both act on the same deadline or callback.
    @Field(key: "version") var version: Int

    init() {}
}

/// A server-wide value generated once and shared by every instance through the database.
final class ServerSetting: Model, @unchecked Sendable {
    static let schema = "server_settings"

    @ID(custom: "key", generatedBy: .user) var id: String?
    @Field(key: "value") var value: String

    init() {}

    init(key: String, value: String) {
        self.id = key
        self.value = value
    }
}
