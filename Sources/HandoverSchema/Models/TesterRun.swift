import FluentKit
import Foundation
import HandoverProtocol

/// One conformance test of an app's logout action: what the tester found in its association
/// file, and its rounds (stored as JSON, read and written whole with a version check).
package final class TesterRun: Model, @unchecked Sendable {
    package static let schema = "tester_runs"

    @ID(key: .id) package var id: UUID?
    @Field(key: "action_url") package var actionURL: String
    /// The appID whose association file entry claims the action path, if one does.
    @OptionalField(key: "claiming_app_id") package var claimingAppID: String?
    /// The association-file findings, as JSON (``TesterAssociationReport``).
    @Field(key: "association_report") package var associationReport: String
    @Field(key: "declares_allowlist") package var declaresAllowlist: Bool
    /// The simulated behaviour driving the test, when a simulated phone plays the app.
    @OptionalField(key: "simulated_behaviour") package var simulatedBehaviour: String?
    @Field(key: "budget_seconds") package var budgetSeconds: Int
    /// The rounds, as JSON (`[TesterRound]`).
    @Field(key: "rounds") package var rounds: String
    /// `running`, `passed` or `failed`.
    @Field(key: "status") package var status: TesterVerdictStatus
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "version") package var version: Int

    package init() {}
}
