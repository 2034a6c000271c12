import FluentKit
import Foundation
import HandoverProtocol

/// One step of a device's life cycle: what happened, from which status to which, and why.
/// Never changed or deleted while the device exists: it is the audit trail IT shows.
package final class DeviceHistoryEntry: Model, @unchecked Sendable {
    package static let schema = "device_history"

    @ID(key: .id) package var id: UUID?
    @Field(key: "device_id") package var deviceID: UUID
    @Field(key: "event") package var event: DeviceHistoryEvent
    @Field(key: "from_status") package var fromStatus: DeviceStatus
    @Field(key: "to_status") package var toStatus: DeviceStatus
    @OptionalField(key: "run_id") package var runID: UUID?
    /// Which apps stayed signed in, for a failed run.
    @OptionalField(key: "reason") package var reason: String?
    /// The admin's note, for back in service.
    @OptionalField(key: "note") package var note: String?
    /// Who did it: an API key's name, or `server` for what the server decided.
    @Field(key: "actor") package var actor: String
    @Field(key: "created_at") package var createdAt: Date

    package init() {}
}
