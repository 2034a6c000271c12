import Foundation
import HandoverProtocol
import HandoverSchema

/// Adds the backend side to a run's report: for each app, the logout token the run owed its
/// backend (delivered, refused, pending or failing, with attempts and the last status).
package enum BackChannelLogoutReport {
    /// A run's app.
    package struct Key: Hashable {
        package var run: UUID
        package var app: UUID

        package init(run: UUID, app: UUID) {
            self.run = run
            self.app = app
        }
    }

    package typealias States = [Key: LogoutRunView.Item.BackendLogout]

    package static func adding(to view: LogoutRunView, on db: DatabaseHandle) async throws -> LogoutRunView {
        let states = try await states(runs: [view.id], on: db)
        guard !states.isEmpty else { return view }
        var result = view
        for index in result.items.indices {
            result.items[index].backend = states[Key(run: view.id, app: result.items[index].appID)]
        }
        return result
    }

    /// The backend side of every app of `runs` that owed its backend a logout token.
    package static func states(runs: [UUID], on db: DatabaseHandle, probed: Bool = false) async throws -> States {
        guard !runs.isEmpty else { return [:] }
        let store = BackChannelLogoutStore(db)
        // Most runs owed no backend a token: one indexed probe answers that (every run read passes
        // here), unless the caller's own statement asked already (`probed`).
        if !probed, try await store.noneOwed(runs: runs) {
            return [:]
        }
        let deliveries = try await store.deliveries(ofRuns: runs)
        guard !deliveries.isEmpty else { return [:] }
        let apps = try await store.appsWithBackChannelURI()
        var states: States = [:]
        for app in apps {
            guard let appID = app.id else { continue }
            let clients = RegisteredClients.clientIDs(of: app)
            for (run, owed) in Dictionary(grouping: deliveries.filter { clients.contains($0.clientID) }, by: { $0.runID }) {
                // With several sessions of one app on the device, the least finished one speaks for them.
                guard let run, let shown = owed.min(by: { rank($0.status) < rank($1.status) }) else { continue }
                states[Key(run: run, app: appID)] = .init(clientID: shown.clientID, state: shown.status, attempts: shown.attempts,
                                                          lastStatusCode: shown.lastStatusCode,
                                                          lastError: shown.lastError.map { String($0.prefix(200)) })
            }
        }
        return states
    }

    private static func rank(_ state: BackChannelLogoutState) -> Int {
        switch state {
        case .failed: 0
        case .refused: 1
        case .pending: 2
        case .delivered: 3
        }
    }
}
