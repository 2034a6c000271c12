import FluentKit
import Foundation
import HandoverProtocol

/// A shared phone whose launcher logs its apps out through this server.
package final class Device: Model, @unchecked Sendable {
    package static let schema = "devices"

    @ID(key: .id) package var id: UUID?
    @Field(key: "name") package var name: String
    @Field(key: "status") package var status: DeviceStatus
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "last_run_id") package var lastRunID: UUID?

    package init() {}

    package init(name: String, createdAt: Date) {
        self.name = name
        self.status = .inService
        self.createdAt = createdAt
    }
}
