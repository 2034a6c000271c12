import HandoverCore
import HandoverPages
import HandoverSchema

extension DashboardViewer {
    /// A viewer for a page under test: a session with `grants` (``Permissions/text``: `admin`,
    /// `operator@ICU`, …), the CSRF token `t`, and `name` in the header. No database holds it.
    static func fixture(_ grants: String = "admin", name: String = "Ada", auditAlarm: String? = nil) -> DashboardViewer {
        let session = DashboardSession()
        session.grants = grants
        session.csrfToken = "t"
        session.breakGlass = false
        return DashboardViewer(session: session, name: name, auditAlarm: auditAlarm)
    }
}
