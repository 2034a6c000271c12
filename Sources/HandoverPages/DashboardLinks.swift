import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// The dashboard's addresses and the links to them that more than one page shows: a device, a
/// run, an app's scorecard, and a run's apps as badges.
package enum DashboardLinks {
    /// A run's timeline page.
    package static func run(_ runID: UUID) -> String { "/dashboard/runs/\(runID.uuidString.lowercased())" }

    /// A device's name, linking to its page (status, history, back in service).
    package static func device(_ device: Device) -> HTML {
        .element("a", ["href": "/dashboard/devices/\(device.id?.uuidString.lowercased() ?? "")"]) { device.name }
    }

    /// Each app of a run: its device side (the ULC answer) and, when its backend is told by
    /// back-channel logout, the backend side.
    package static func itemBadges(_ items: [LogoutItem], backends: BackChannelLogoutReport.States = [:]) -> HTML {
        .join(items.map { item in
            let backend = backends[.init(run: item.runID, app: item.appID)]
            return HTML.element("span", ["class": "item", "title": "\(item.appName): \(item.status), \(item.attempts) attempt(s)"
                                            + (backend.map(backendSummary) ?? "")]) {
                item.appName; " "; DashboardLayout.badge(item.status)
                if let backend { " backend "; DashboardLayout.badge(backend) }
                " "
            }
        })
    }

    /// The backend side in words, for a badge's title: state, attempts, and why the last failed.
    package static func backendSummary(_ backend: LogoutRunView.Item.BackendLogout) -> String {
        var text = "; backend \(backend.isFailing ? "failing" : backend.state.rawValue) after \(backend.attempts) attempt(s)"
        if let code = backend.lastStatusCode { text += " (last HTTP \(code))" } else if let error = backend.lastError { text += " (last: \(error))" }
        return text
    }

    /// An app's name, linking to its scorecard.
    package static func scorecard(_ app: RegisteredApp) -> HTML {
        .element("a", ["href": "/dashboard/scorecards/\(app.id?.uuidString.lowercased() ?? "")"]) { app.name }
    }
}
