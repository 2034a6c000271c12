import Foundation

/// A custody in progress as the check-out's rules weigh it (``CustodyRules``): the row of
/// `custodies` as a value. ``CustodyLedger`` reads and writes it with plain SQL (``CustodyStore``,
/// over `OpenCustody+Store`): a shift's check-outs would otherwise spend their writer's time in
/// Fluent's reflection of each model.
package struct OpenCustody: Sendable, Equatable {
    package var id: UUID
    package var deviceID: UUID
    package var userID: UUID
    package var personName: String?
    package var personEmail: String?
    package var site: String?
    /// The site's ``SiteName/key``.
    package var siteKey: String?
    package var checkedOutBy: String
    package var checkedOutAt: Date
    package var badgeDigest: String?
    /// Set when a later check-out of the same batch took the device over.
    package var checkedInAt: Date?
    package var endedWithoutRun: String?

    /// Ends the custody: the next person took the device over before a hand-over.
    package mutating func end(at now: Date) {
        checkedInAt = now
        endedWithoutRun = CustodyRules.takenOver
    }
}
