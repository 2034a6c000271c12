import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The MDM commands' outbox statements (``MDMCommandDispatcher``): the commands due, and each
/// attempt's lease and record through the outbox (``DeliveryOutbox``, on `mdm_commands`). What a
/// device owes, and its history, are ``DeviceStore``'s.
package struct MDMCommandStore: Sendable {
    package let database: DatabaseHandle
    /// The `mdm_commands` outbox: its lease and attempts.
    package let outbox: DeliveryOutbox

    package init(_ database: DatabaseHandle, outbox: DeliveryOutbox) {
        self.database = database
        self.outbox = outbox
    }

    /// The database as SQL (SQLite and PostgreSQL both speak it); throws ``DomainError``
    /// (`no_sql`) for one that does not.
    private func sqlDatabase() throws -> any SQLDatabase {
        return try ServerDatabases.sql(database, code: "no_sql")
    }

    /// The pending commands due at `now`, the earliest due first; at most `limit`.
    package func due(at now: Date, limit: Int) async throws -> [MDMCommand] {
        try await MDMCommand.query(on: database).filter(\.$status == .pending).filter(\.$nextAttemptAt <= now)
            .sort(\.$nextAttemptAt).limit(limit).all()
    }

    /// Leases command `id` at `version`, counting its attempt and marking it in flight since `now`.
    package func lease(_ id: UUID, version: Int, at now: Date) async throws -> DeliveryOutbox.Leased {
        try await outbox.lease(id, version: version, at: now, sql: sqlDatabase(), setting: [.init("in_flight_since", now)])
    }

    /// Records attempt `attempt` of command `id`: its status, the MDM's status code, answer and
    /// failure, when it is due again, when it was sent (sent or a dry run: `finished`), and that
    /// it is no longer in flight.
    package func record(_ id: UUID, attempt: Int, status: MDMCommandState, statusCode: Int?, failure: String?, nextAttemptAt: Date,
                        answer: String?, finished: Date) async throws {
        try await outbox.record(id, attempt: attempt, status: status.rawValue, statusCode: statusCode, failure: failure,
                                nextAttemptAt: nextAttemptAt, sql: sqlDatabase(),
                                setting: [.init("answer", answer), .init("sent_at", status == .sent || status == .dryRun ? finished : nil),
                                          .init("in_flight_since", Date?.none)])
    }
}
