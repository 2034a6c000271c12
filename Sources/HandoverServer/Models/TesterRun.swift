import Fluent
import Foundation
import HandoverCore
import HandoverProtocol

/// One conformance test of an app's logout action: what the tester found in its association
/// file, and its rounds (stored as JSON, read and written whole with a version check).
final class TesterRun: Model, @unchecked Sendable {
    static let schema = "tester_runs"

    @ID(key: .id) var id: UUID?
    @Field(key: "action_url") var actionURL: String
    /// The appID whose association file entry claims the action path, if one does.
    @OptionalField(key: "claiming_app_id") var claimingAppID: String?
    /// The association-file findings, as JSON (``TesterAssociationReport``).
    @Field(key: "association_report") var associationReport: String
    @Field(key: "declares_allowlist") var declaresAllowlist: Bool
    /// The simulated behaviour driving the test, when a simulated phone plays the app.
    @OptionalField(key: "simulated_behaviour") var simulatedBehaviour: String?
    @Field(key: "budget_seconds") var budgetSeconds: Int
    /// The rounds, as JSON (`[TesterRound]`).
    @Field(key: "rounds") var rounds: String
    /// `running`, `passed` or `failed`.
    @Field(key: "status") var status: TesterVerdictStatus
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "version") var version: Int

    init() {}
}
