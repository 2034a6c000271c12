import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// A registered app as a logout run uses it: what its link is made of, how long it is given and
/// how often its link is reissued. Read with one SQL statement of six columns, not as a
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
        self.init(id: try app.requireID(), name: app.name, logoutAction: app.logoutAction, logoutMethod: app.logoutMethod,
                  deadlineSeconds: app.deadlineSeconds, maxReissues: app.maxReissues)
    }

    init(row: any SQLRow) throws {
        self.init(id: try row.decode(column: "id", as: UUID.self), name: try row.decode(column: "name", as: String.self),
                  logoutAction: try row.decode(column: "logout_action", as: String?.self),
                  logoutMethod: try row.decode(column: "logout_method", as: LogoutMethod?.self),
                  deadlineSeconds: try row.decode(column: "deadline_seconds", as: Int.self),
                  maxReissues: try row.decode(column: "max_reissues", as: Int.self))
    }

    private static let columns = SQLQueryString("id, name, logout_action, logout_method, deadline_seconds, max_reissues")

    /// Every target app, in the order they were registered (a run's default list).
    package static func targets(on sql: any SQLDatabase) async throws -> [RunApp] {
        try await sql.raw("SELECT \(columns) FROM apps WHERE role = \(bind: AppRole.target.rawValue) ORDER BY created_at").all().map(RunApp.init(row:))
    }

    /// The apps with these ids that exist, by id.
    package static func withIDs(_ ids: Set<UUID>, on sql: any SQLDatabase) async throws -> [UUID: RunApp] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await sql.raw("SELECT \(columns) FROM apps WHERE id IN (\(binds: Array(ids)))").all()
        return Dictionary(try rows.map { row in let app = try RunApp(row: row); return (app.id, app) }) { first, _ in first }
    }
}
