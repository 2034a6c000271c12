import FluentKit
import Foundation

/// One reissue of an app's logout link: the deadline the app missed, and the new attempt issued
/// for it. Written by ``LogoutItemTransitions/reissue(item:version:missed:at:deadline:)`` in the
/// transaction that reissues, so a run's timeline shows every attempt.
package final class LogoutItemReissue: Model, @unchecked Sendable {
    package static let schema = "logout_item_reissues"

    @ID(key: .id) package var id: UUID?
    @Field(key: "run_id") package var runID: UUID
    @Field(key: "item_id") package var itemID: UUID
    /// The attempt this reissue started: 2 for the first reissue.
    @Field(key: "attempt") package var attempt: Int
    @Field(key: "missed_deadline_at") package var missedDeadlineAt: Date
    @Field(key: "issued_at") package var issuedAt: Date
    @Field(key: "deadline_at") package var deadlineAt: Date

    package init() {}
}
