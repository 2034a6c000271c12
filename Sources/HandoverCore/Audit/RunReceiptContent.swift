import Foundation
import HandoverProtocol
import HandoverSchema

/// What a run's receipt says, as a value (issue 65): the run as it finished and the facts read
/// for it go in, the ``RunReceipt`` comes out. ``RunReceipts`` reads the facts for a batch of
/// finished runs, asks this for each receipt, signs it and appends it to the audit log.
package enum RunReceiptContent {
    /// What the receipt says beyond the run's own view, as read when it finished.
    package struct Facts: Sendable, Equatable {
        /// The device (nil: gone; the receipt names it by id alone).
        package var device: RunReceipt.Device?
        /// Who held the device, by the custody the run checked in.
        package var holder: RunReceipt.Holder?
        /// The MDM command a failed run's device step queued.
        package var command: RunReceipt.MDMCommand?
        /// The logout token each app's backend was owed, by app id.
        package var backends: [UUID: LogoutRunView.Item.BackendLogout]

        package init(device: RunReceipt.Device? = nil, holder: RunReceipt.Holder? = nil, command: RunReceipt.MDMCommand? = nil,
                     backends: [UUID: LogoutRunView.Item.BackendLogout] = [:]) {
            self.device = device
            self.holder = holder
            self.command = command
            self.backends = backends
        }
    }

    /// The receipt of `run`, issued by `issuer` at `now`.
    ///
    /// - Each app in the run's order, with its method (ULC when the run predates methods), its
    ///   outcome and attempts, and how its answer arrived: `deadline` for one that timed out, its
    ///   reporter (`launcher`, `browser`) for one answered, else `back-channel` for a backend-only
    ///   app and `launcher` for the rest.
    /// - The MDM command only for a failed run.
    /// - A run without a finish time (it cannot be, once finished) reads as finished at `now`.
    package static func receipt(of run: FinishedRun, facts: Facts, issuer: String, now: Date) -> RunReceipt {
        let view = run.view
        let apps = view.items.sorted { $0.position < $1.position }.map { item in
            let method = run.methods[item.id] ?? .ulc
            let answeredBy = item.status == .timedOut ? "deadline"
                : item.reportedBy?.rawValue ?? (method == .backendOnly ? "back-channel" : "launcher")
            let backend = facts.backends[item.appID].map {
                RunReceipt.Backend(clientID: $0.clientID, delivery: $0.state, attempts: $0.attempts, statusCode: $0.lastStatusCode)
            }
            return RunReceipt.App(id: item.appID, name: item.app, method: method, outcome: item.status, attempts: item.attempts,
                                  answeredBy: answeredBy, finishedAt: item.finishedAt.map(RunReceipt.timestamp), backend: backend)
        }
        return RunReceipt(
            iss: issuer, iat: Int(now.timeIntervalSince1970), jti: view.id.uuidString, handoverVersion: HandoverVersion.current,
            run: .init(id: view.id, status: view.status, startedAt: RunReceipt.timestamp(view.createdAt),
                       finishedAt: RunReceipt.timestamp(view.finishedAt ?? now)),
            device: facts.device ?? .init(id: run.device, name: "", site: nil), holder: facts.holder, apps: apps,
            mdm: run.state == .failed ? facts.command : nil)
    }
}
