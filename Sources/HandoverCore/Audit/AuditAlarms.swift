import Foundation

/// The audit log's alarms: what the checkpoint pass or the self-check found wrong, kept in the
/// database until an operator acknowledges it (`handover audit acknowledge`), so that a restart,
/// or another instance, does not forget it.
///
/// Deleting a row does not silence the server: the checks find the same thing again on their
/// next pass, since each compares the stored log with what was signed, which a database writer
/// cannot sign again without the server's encryption key.
///
/// Their statements (``open(on:)``, ``raise(_:_:on:now:)``, ``acknowledge(by:reason:on:now:)``)
/// are the store's (``AuditStore``).
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
}
