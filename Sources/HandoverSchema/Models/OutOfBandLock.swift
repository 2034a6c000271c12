import FluentKit
import Foundation

/// A user whose out-of-band sign-in is locked: they reported a request as not theirs ("this was
/// not me"). New sign-in requests for them are refused until an admin clears the lock
/// (`DELETE /api/v1/oob-locks/{user}`).
package final class OutOfBandLock: Model, @unchecked Sendable {
    package static let schema = "oob_locks"

    /// The user handle.
    @ID(custom: "user_handle", generatedBy: .user) package var id: String?
    /// The reported operation.
    @Field(key: "operation_id") package var operationID: UUID
    @Field(key: "locked_at") package var lockedAt: Date

    package init() {}

    package init(user: String, operationID: UUID, lockedAt: Date) {
        self.id = user
        self.operationID = operationID
        self.lockedAt = lockedAt
    }
}
