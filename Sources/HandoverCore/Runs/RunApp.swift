import Foundation
import HandoverProtocol
import HandoverSchema

/// A registered app as a logout run uses it: what its link is made of, how long it is given and
/// how often its link is reissued. Read with one SQL statement of six columns
/// (``LogoutRunRows/targetApps()``, ``LogoutRunRows/apps(withIDs:)``), not as a
/// ``RegisteredApp`` model (whose JSON columns and reflection cost more than the run's own
/// writes during a shift change).
package struct RunApp: Sendable, Equatable {
    package var id: UUID
    package var name: String
    /// The app's ULC action or x-callback-url, nil for a backend-only app.
    package var logoutAction: String?
    package var logoutMethod: LogoutMethod?
    package var deadlineSeconds: Int
    package var maxReissues: Int

    package init(id: UUID, name: String, logoutAction: String?, logoutMethod: LogoutMethod?, deadlineSeconds: Int, maxReissues: Int) {
        self.id = id
        self.name = name
        self.logoutAction = logoutAction
        self.logoutMethod = logoutMethod
        self.deadlineSeconds = deadlineSeconds
        self.maxReissues = maxReissues
    }

    /// The run's view of a stored app model.
    package init(_ app: RegisteredApp) throws {
        self.init(id: try app.storedID, name: app.name, logoutAction: app.logoutAction, logoutMethod: app.logoutMethod,
                  deadlineSeconds: app.deadlineSeconds, maxReissues: app.maxReissues)
    }
}
