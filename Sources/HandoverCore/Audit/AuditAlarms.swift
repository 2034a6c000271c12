import Foundation
import SQLKit

/// The audit log's alarms: what the checkpoint pass or the self-check found wrong, kept in the
/// database until an operator acknowledges it (`handover audit acknowledge`), so that a restart,
/// or another instance, does not forget it.
///
/// Deleting a row does not silence the server: the checks find the same thing again on their
/// next pass, since each compares the stored log with what was signed, which a database writer
/// cannot sign again without the server's encryption key.
package enum AuditAlarms {
    /// What an alarm is about.
    package enum Kind: String, Sendable, CaseIterable {
        /// The log itself: its stored history no longer makes what was signed (a rewritten or
        /// missing entry, a checkpoint that does not verify or was deleted). No checkpoint is
        /// signed while one is open.
        case history
        /// Records beside the log disagree with it (a run's stored outcome against its signed
        /// receipt). Checkpoints go on; the alarm stays until it is acknowledged.
        case records
    }

    /// One open (or acknowledged) alarm.
    package struct Alarm: Sendable, Equatable {
        package var id: UUID
        package var kind: Kind
        package var finding: String
        package var raisedAt: Date
    }

    /// The longest finding kept (a finding names an entry or a run; nothing a stranger sent).
    static let findingLength = 1_000

    /// The alarms no operator has acknowledged yet, oldest first.
    package static func open(on sql: any SQLDatabase) async throws -> [Alarm] {
        try await sql.raw("""
            SELECT id, kind, finding, raised_at FROM audit_alarms WHERE acknowledged_at IS NULL ORDER BY raised_at, id
            """).all().map { row in
            Alarm(id: try row.decode(column: "id", as: UUID.self), kind: Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .history,
                  finding: try row.decode(column: "finding", as: String.self), raisedAt: try row.decode(column: "raised_at", as: Date.self))
        }
    }

    /// Records `finding`, unless an open alarm already says it (the checks repeat it on every pass
    /// until it is mended or acknowledged), or it is about records and was acknowledged once (the
    /// operator accepted that row as it is); returns the new alarm, or nil. A finding about the
    /// history after an acknowledgement is new: the epoch began with the log as it then stood.
    package static func raise(_ kind: Kind, _ finding: String, on sql: any SQLDatabase, now: Date) async throws -> Alarm? {
        let alarm = Alarm(id: UUID(), kind: kind, finding: String(finding.prefix(findingLength)), raisedAt: now)
        let inserted = try await sql.raw("""
            INSERT INTO audit_alarms (id, kind, finding, raised_at)
            SELECT \(bind: alarm.id), \(bind: kind.rawValue), \(bind: alarm.finding), \(bind: now)
            WHERE NOT EXISTS (SELECT 1 FROM audit_alarms WHERE finding = \(bind: alarm.finding)
                              AND (acknowledged_at IS NULL OR kind = \(literal: Kind.records.rawValue)))
            ON CONFLICT DO NOTHING RETURNING id
            """).first()
        return inserted == nil ? nil : alarm
    }

    /// Marks every open alarm acknowledged by `operatorName` for `reason`; returns them.
    package static func acknowledge(by operatorName: String, reason: String, on sql: any SQLDatabase, now: Date) async throws -> [Alarm] {
        let alarms = try await open(on: sql)
        guard !alarms.isEmpty else { return [] }
        try await sql.raw("""
            UPDATE audit_alarms SET acknowledged_at = \(bind: now), acknowledged_by = \(bind: operatorName), acknowledgement = \(bind: reason)
            WHERE acknowledged_at IS NULL AND id IN (\(binds: alarms.map(\.id)))
            """).run()
        return alarms
    }
}
