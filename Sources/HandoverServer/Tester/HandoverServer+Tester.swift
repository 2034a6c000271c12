import Foundation
import HandoverCore

extension HandoverServer {
    /// Creates a conformance test, as the `/tester` form does, and returns its id.
    ///
    /// - Parameters:
    ///   - action: the app's logout action URL; ignored with `simulate`, which installs a
    ///     simulated app and uses its action.
    ///   - declaresAllowlist: whether the app accepts callbacks only to an allowlist (adds the
    ///     hostile-callback round).
    ///   - simulate: a behaviour of the server's ``TesterSimulator``: the simulated phone plays
    ///     every round at once.
    ///   - budgetSeconds: the answer budget (20 s in the ULC spec).
    /// - Throws: ``TesterInputError`` naming the field at fault.
    public func createTesterRun(action: String?, declaresAllowlist: Bool, simulate: String?,
                                budgetSeconds: Int = 20) async throws -> UUID {
        do {
            return try await testerLaunch.createTest(action: action, declaresAllowlist: declaresAllowlist, simulate: simulate,
                                                     budgetSeconds: budgetSeconds, on: testerLaunch.tester(databases.primary))
        } catch let refusal as DomainError {
            throw TesterInputError(field: refusal.field, reason: refusal.reason)
        }
    }

    /// The verdict of a test so far, or `nil` for an unknown id.
    public func testerVerdict(_ id: UUID) async throws -> TesterVerdict? {
        try await testerLaunch.tester(databases.primary).snapshot(id)?.verdict
    }

    /// A test's rounds so far (their links, status and answers), or `nil` for an unknown id.
    public func testerRounds(_ id: UUID) async throws -> [TesterRound]? {
        try await testerLaunch.tester(databases.primary).snapshot(id)?.rounds
    }

    /// The association-file findings of a test, or `nil` for an unknown id.
    public func testerAssociation(_ id: UUID) async throws -> TesterAssociationReport? {
        try await testerLaunch.tester(databases.primary).snapshot(id)?.association
    }

    /// Starts round `number` (from 1) of a test a person plays: the clock runs from now.
    @discardableResult
    public func startTesterRound(_ id: UUID, number: Int) async throws -> Bool {
        try await testerLaunch.tester(databases.primary).start(id, roundNumber: number)
    }
}

/// A tester input that was refused: which field, and why.
public struct TesterInputError: Error, CustomStringConvertible, Sendable {
    public var field: String?
    public var reason: String
    public var description: String { reason }
}
