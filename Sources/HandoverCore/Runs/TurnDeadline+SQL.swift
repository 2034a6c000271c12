import Foundation
import HandoverProtocol
import SQLKit

extension TurnDeadline {
    /// The same deadline as an SQL expression over the row `logout_items` of the enclosing
    /// statement: seconds on SQLite (SQLiteNIO stores a date as a REAL), `timestamptz` plus an
    /// interval on PostgreSQL, so one text serves both. The turn is one correlated subquery on
    /// the `logout_items_run` index, with no answer after the link's issue when it did not begin
    /// later (then the link's own deadline).
    package static let sql: SQLQueryString = """
        CASE WHEN logout_items.attempts = 1 AND COALESCE(logout_items.logout_method, '') <> \(literal: LogoutMethod.backendOnly.rawValue)
        THEN COALESCE((SELECT MAX(earlier.finished_at) + (logout_items.deadline_at - logout_items.issued_at)
        FROM logout_items AS earlier WHERE earlier.run_id = logout_items.run_id AND earlier.position < logout_items.position
        AND earlier.attempts = 1 AND earlier.reported_by IS NOT NULL AND earlier.finished_at > logout_items.issued_at),
        logout_items.deadline_at) ELSE logout_items.deadline_at END
        """
}
