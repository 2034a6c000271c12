import Foundation
import HandoverProtocol
import SQLKit

/// The one writer of a device's history: each step is a `device_history` row and an audit log
/// entry (`device.<event>`), written together in the caller's transaction.
package enum DeviceHistoryLog {
    /// One step of one device.
    package struct Step: Sendable {
        package var device: UUID
        package var event: DeviceHistoryEvent
        package var from: DeviceStatus
        package var to: DeviceStatus
        package var run: UUID?
        package var reason: String?
        package var note: String?
        package var actor: String

        package init(device: UUID, event: DeviceHistoryEvent, from: DeviceStatus, to: DeviceStatus, run: UUID? = nil,
                     reason: String? = nil, note: String? = nil, actor: String = DeviceLifeCycle.serverActor) {
            self.device = device
            self.event = event
            self.from = from
            self.to = to
            self.run = run
            self.reason = reason
            self.note = note
            self.actor = String(actor.prefix(100))
        }
    }

    /// Writes `steps` at `now`: one `INSERT` for the history, one for the log.
    package static func write(_ steps: [Step], on sql: any SQLDatabase, now: Date) async throws {
        guard !steps.isEmpty else { return }
        let rows = steps.map { step -> SQLQueryString in
            """
            (\(bind: UUID()), \(bind: step.device), \(bind: step.event.rawValue), \(bind: step.from.rawValue), \
            \(bind: step.to.rawValue), \(bind: step.run), \(bind: step.reason), \(bind: step.note), \(bind: step.actor), \(bind: now))
            """
        }
        try await sql.raw("""
            INSERT INTO device_history (id, device_id, event, from_status, to_status, run_id, reason, note, actor, created_at)
            VALUES \(SQLList(rows))
            """).run()
        try await AuditTrail.append(steps.map { step in
            var detail = ["from": step.from.rawValue, "to": step.to.rawValue]
            detail["reason"] = step.reason
            detail["note"] = step.note
            let actor = step.actor == DeviceLifeCycle.serverActor ? AuditActor.server : AuditActor(kind: "recorded", name: step.actor)
            return AuditEvent(type: "device.\(step.event.rawValue)", at: now, actor: actor, device: step.device, run: step.run, detail: detail)
        }, on: sql, now: now)
        // Shared Signals: CAEP device-compliance-change when a step crosses between compliant
        // and not (most steps do not, and then nothing is read).
        let changes = steps.compactMap { step in compliance(from: step.from, to: step.to).map { (step, $0) } }
        guard !changes.isEmpty else { return }
        try await SharedSignalsOutbox.enqueue(on: sql, now: now) {
            changes.map { step, compliant in
                SecurityEvent.deviceCompliance(device: step.device, compliant: compliant,
                                               reason: step.reason ?? step.note ?? "\(step.from.rawValue) to \(step.to.rawValue)", run: step.run, at: now)
            }
        }
    }

    /// Whether a step makes a device compliant (true) or not (false), or leaves that as it was
    /// (nil). Out of service and overdue are not compliant; in service is; a hand-over in
    /// progress is neither, so only its end says which way it went.
    static func compliance(from: DeviceStatus, to: DeviceStatus) -> Bool? {
        let failing: Set<DeviceStatus> = [.outOfService, .overdue]
        if failing.contains(to), !failing.contains(from) { return false }
        if to == .inService, failing.contains(from) { return true }
        return nil
    }
}
