import Foundation
import HandoverCore
import HandoverSchema

/// Who a dashboard page is for: the signed-in session, who it is in words (the person, or the key
/// that signed in), and the audit log's alarm while one is open. Every page of a signed-in
/// session gets one from the server's sign-in check and passes it to
/// ``DashboardLayout/document(_:viewer:body:)``; nothing about the viewer is read from ambient
/// state.
package struct DashboardViewer: Sendable {
    /// The stored session.
    package let session: DashboardSession
    /// The person's name or the key's, as the header shows it; nil when neither can be read.
    package let name: String?
    /// The audit log's alarm, shown at the top of every page while one is open.
    package let auditAlarm: String?

    package init(session: DashboardSession, name: String?, auditAlarm: String?) {
        self.session = session
        self.name = name
        self.auditAlarm = auditAlarm
    }

    /// The token every form of this session carries back.
    package var csrfToken: String { session.csrfToken }
    /// What this session may do.
    package var permissions: Permissions { session.permissions }
    /// The devices this session sees.
    package var siteFilter: SiteFilter { session.siteFilter }
    /// The person who signed in, for a person's session.
    package var personID: UUID? { session.personID }
    /// A key sign-in while a provider is configured.
    package var breakGlass: Bool { session.breakGlass }

    /// ``DashboardSession/may(_:everySite:)``.
    package func may(_ role: AdminRole, everySite: Bool = true) -> Bool { session.may(role, everySite: everySite) }

    /// ``DashboardSession/may(_:at:)``.
    package func may(_ role: AdminRole, at site: String?) -> Bool { session.may(role, at: site) }
}
