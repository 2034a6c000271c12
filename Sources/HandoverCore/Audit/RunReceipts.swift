import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SessionTokens
import SQLKit

/// Signs a receipt for every run that ends, in the transaction that ends it, and writes it to the
/// audit log (`run.receipt`): the device, its site and who held it, each app's outcome, method
/// and how its answer arrived, each backend's logout token, the MDM command the outcome queued.
/// What a receipt says is ``RunReceiptContent``'s; this reads its facts, signs and logs.
///
/// A batch of finished runs costs one read (its devices with their custodies, and whether any
/// run owed a backend a logout token), more for a failed run's MDM command and for the tokens
/// owed, and its share of the conclusion's one append (the items' methods come with the
/// finished runs).
package struct RunReceipts: Sendable {
    /// The access-token key ring: receipts are signed with its signing key (ES256), whose `kid`
    /// is in the JWKS.
    package let ring: SessionKeyRing

    package init(ring: SessionKeyRing) {
        self.ring = ring
    }

    /// Signs and logs the receipts of `finished`; returns each run's compact JWS.
    package func issue(for finished: [FinishedRun], on db: Database, now: Date) async throws -> [UUID: String] {
        guard !finished.isEmpty, let sql = db as? any SQLDatabase else { return [:] }
        let runs = finished.map(\.run)
        let runList = SQLList(runs.map { SQLBind($0) })
        let deviceList = SQLList(Set(finished.map(\.device)).map { SQLBind($0) })
        // The devices, each with the custody its run checked in (through the device index).
        var devices: [UUID: RunReceipt.Device] = [:]
        var holders: [UUID: RunReceipt.Holder] = [:]
        // Whether any of the runs owed a backend a logout token, asked in the same statement.
        var owed = false
        for row in try await sql.raw("""
            SELECT d.id, d.name, d.site, c.run_id, c.user_id, c.checked_out_at, c.checked_out_by,
            EXISTS (SELECT 1 FROM backchannel_logout_deliveries WHERE run_id IN (\(runList))) AS owed
            FROM devices d LEFT JOIN custodies c ON c.device_id = d.id AND c.run_id IN (\(runList)) WHERE d.id IN (\(deviceList))
            """).all() {
            let id = try row.decode(column: "id", as: UUID.self)
            owed = try row.decode(column: "owed", as: Bool.self)
            devices[id] = .init(id: id, name: try row.decode(column: "name", as: String.self), site: try row.decode(column: "site", as: String?.self))
            if let run = try row.decode(column: "run_id", as: UUID?.self) {
                holders[run] = .init(iss: ring.issuer, sub: try row.decode(column: "user_id", as: UUID.self).uuidString,
                                     checkedOutAt: RunReceipt.timestamp(try row.decode(column: "checked_out_at", as: Date.self)),
                                     checkedOutBy: try row.decode(column: "checked_out_by", as: String.self))
            }
        }
        // The command a failed run's device step queued, written at `now` in this transaction.
        var commands: [UUID: RunReceipt.MDMCommand] = [:]
        if finished.contains(where: { $0.state == .failed }) {
            for row in try await sql.raw("""
                SELECT device_id, action, connector, status FROM mdm_commands WHERE device_id IN (\(deviceList)) AND created_at = \(bind: now)
                """).all() {
                commands[try row.decode(column: "device_id", as: UUID.self)] = .init(
                    action: try row.decode(column: "action", as: MDMAction.self), connector: try row.decode(column: "connector", as: String.self),
                    status: try row.decode(column: "status", as: MDMCommandState.self))
            }
        }
        let backends = owed ? try await BackChannelLogoutReport.states(runs: runs, on: db, probed: true) : [:]
        var signed: [UUID: String] = [:]
        var events: [AuditEvent] = []
        for run in finished {
            var facts = RunReceiptContent.Facts(device: devices[run.device], holder: holders[run.run], command: commands[run.device])
            for item in run.view.items {
                if let backend = backends[.init(run: run.run, app: item.appID)] { facts.backends[item.appID] = backend }
            }
            let jws = try ring.sign(document: RunReceiptContent.receipt(of: run, facts: facts, issuer: ring.issuer, now: now),
                                    type: RunReceipt.headerType)
            signed[run.run] = jws
            events.append(AuditEvent(type: AuditEvent.receiptType, at: now, actor: .server, device: run.device, run: run.run,
                                     detail: ["status": run.view.status.rawValue], receipt: jws))
        }
        try await AuditTrail.append(events, on: sql, now: now)
        return signed
    }

    /// A run's receipt, as it was signed when the run ended; nil before it ended (or for a run
    /// that ended before receipts existed).
    package static func receipt(of run: UUID, on sql: any SQLDatabase) async throws -> String? {
        guard let row = try await sql.raw("""
            SELECT leaf FROM audit_entries WHERE run_id = \(bind: run) AND type = \(literal: AuditEvent.receiptType)
            """).first() else { return nil }
        return try AuditEvent.decode(leaf: try row.decode(column: "leaf", as: Data.self)).receipt
    }
}
