import Foundation
import HandoverProtocol
import HandoverSchema
import SessionTokens

/// Signs a receipt for every run that ends, in the transaction that ends it, and writes it to the
/// audit log (`run.receipt`): the device, its site and who held it, each app's outcome, method
/// and how its answer arrived, each backend's logout token, the MDM command the outcome queued.
/// What a receipt says is ``RunReceiptContent``'s; this reads its facts (through
/// ``AuditStore``), signs and logs.
///
/// A batch of finished runs costs one read (its devices with their custodies, and whether any
/// run owed a backend a logout token), more for a failed run's MDM command and for the tokens
/// owed, and its share of the conclusion's one append (the items' methods come with the
/// finished runs). A receipt is read back as signed with ``receipt(of:on:)`` (beside the
/// store's statements).
package struct RunReceipts: Sendable {
    /// The access-token key ring: receipts are signed with its signing key (ES256), whose `kid`
    /// is in the JWKS.
    package let ring: SessionKeyRing

    package init(ring: SessionKeyRing) {
        self.ring = ring
    }

    /// What ``issue(for:on:now:)`` signed, and what its read found out besides.
    package struct Issued: Sendable {
        /// Each run's compact JWS, by run id.
        package var signed: [UUID: String] = [:]
        /// Whether any webhook is registered, read with the receipts' facts; nil when not read.
        package var webhooksRegistered: Bool?

        package init(signed: [UUID: String] = [:], webhooksRegistered: Bool? = nil) {
            self.signed = signed
            self.webhooksRegistered = webhooksRegistered
        }
    }

    /// Signs and logs the receipts of `finished`; returns each run's compact JWS, and whether any
    /// webhook is registered (asked in the facts' statement, for the conclusion's webhook events).
    package func issue(for finished: [FinishedRun], on db: DatabaseHandle, now: Date) async throws -> Issued {
        guard !finished.isEmpty, let store = AuditStore(db) else { return Issued() }
        let runs = finished.map(\.run)
        // The devices with the custodies their runs checked in, whether any run owed a backend a
        // logout token, and a failed run's MDM command: the store's one or two statements.
        let read = try await store.receiptFacts(for: finished, issuer: ring.issuer, now: now)
        let backends = read.owed ? try await BackChannelLogoutReport.states(runs: runs, on: db, probed: true) : [:]
        var signed: [UUID: String] = [:]
        var events: [AuditEvent] = []
        for run in finished {
            var facts = RunReceiptContent.Facts(device: read.devices[run.device], holder: read.holders[run.run], command: read.commands[run.device])
            for item in run.view.items {
                if let backend = backends[.init(run: run.run, app: item.appID)] { facts.backends[item.appID] = backend }
            }
            let jws = try ring.sign(document: RunReceiptContent.receipt(of: run, facts: facts, issuer: ring.issuer, now: now),
                                    type: RunReceipt.headerType)
            signed[run.run] = jws
            events.append(AuditEvent(type: AuditEvent.receiptType, at: now, actor: .server, device: run.device, run: run.run,
                                     detail: ["status": run.view.status.rawValue], receipt: jws))
        }
        try await store.append(events, now: now)
        return Issued(signed: signed, webhooksRegistered: read.webhooksRegistered)
    }
}
