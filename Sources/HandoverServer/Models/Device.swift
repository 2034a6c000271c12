import Fluent
import Foundation
import HandoverProtocol

/// A shared phone whose launcher logs its apps out through this server.
final class Device: Model, @unchecked Sendable {
    static let schema = "devices"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    @Field(key: "status") var status: DeviceStatus
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "last_run_id") var lastRunID: UUID?

    init() {}

    init(name: String, createdAt: Date) {
        self.name = name
        self.status = .inService
        self.createdAt = createdAt
    }
}
