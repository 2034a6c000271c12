import AsyncHTTPClient
import HandoverProtocol
import Foundation
import HandoverCore
import HandoverTransport
import LinkCallbacks

/// Starts conformance tests, for the dashboard's form and `handover tester run` alike: checks
/// the action, reads the app's association file, creates the test and, with a simulated app,
/// drives it in the background.
struct TesterLaunch: Sendable {
    /// The tester on a database.
    let tester: ConformanceTester.OnDatabase
    /// Drives simulated apps, when the command line passed one in.
    let simulator: (any TesterSimulator)?
    let origins: TesterOrigins
    /// The policy a target app's logout action must pass.
    let actionPolicy: CallbackPolicy
    /// Fetches association files (no redirects).
    let outboundClient: HTTPClient?
    /// Whether http on loopback is accepted (``ServerConfiguration/developerMode``).
    let developerMode: Bool
    let detachedWork: DetachedWork

    /// Creates a test (and, with `simulate`, a simulated app and the task that plays it); the
    /// dashboard and `handover tester run` both come here. Throws a ``HandoverCore/DomainError`` naming the field.
    func createTest(action: String?, declaresAllowlist: Bool, simulate: String?, budgetSeconds: Int,
                    on tester: ConformanceTester) async throws -> UUID {
        var action = action
        var allowlist = declaresAllowlist
        var driven: (any TesterSimulator)?
        if let simulate {
            guard let available = self.simulator else {
                throw DomainError.invalid("simulate", "this server has no simulated phone; run `handover demo` or `handover tester run --simulate`")
            }
            guard available.behaviours.contains(simulate) else {
                throw DomainError.invalid("simulate", "'\(simulate)' is not a behaviour; accepted: \(available.behaviours.joined(separator: ", "))")
            }
            let host = origins.callback.host ?? "localhost"
            do {
                let app = try await available.installApp(behaviour: simulate, allowedCallbackHost: host)
                action = app.actionURL
                allowlist = app.declaresAllowlist
            } catch {
                throw DomainError(.storage, code: "simulator_failed", reason: "The simulated app could not be installed: \(error)")
            }
            driven = available
        }
        guard let action, !action.isEmpty else {
            throw DomainError.invalid("action", "give the app's logout action URL, such as https://mail.example.com/ulc/logout")
        }
        try AppRegistrar.Input.checkLogoutAction(action, policy: actionPolicy, field: "action")
        guard let client = outboundClient else { throw DomainError(.storage, code: "no_client", reason: "No HTTP client.") }
        let report = await TesterAssociationCheck(client: client, developerMode: developerMode).check(action: action)
        let id = try await tester.create(action: action, declaresAllowlist: allowlist, budgetSeconds: budgetSeconds,
                                         simulatedBehaviour: simulate, association: report)
        if let simulator = driven {
            detachedWork.start { await tester.drive(id, simulator: simulator) }
        }
        return id
    }
}
