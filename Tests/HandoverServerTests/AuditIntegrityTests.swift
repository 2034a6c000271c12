import Foundation
import HandoverConfiguration
import HandoverCore
import HandoverServer
import SQLKit
import Testing
import TestPeers
import TransparencyLog

/// Issue 63, finding 7: the log never signs over a broken history. Before a checkpoint is
/// signed, the previous signed checkpoint is verified with the log's key and proven consistent
/// with the new tree (RFC 9162 §2.1.4): the stored leaves must reproduce its root, and the new
/// leaves are hashed again from the entries' bytes. A rewritten history raises an alarm (log,
/// `handover_audit_integrity_failed`, an `audit.alarm` entry for the SIEM, `audit.mismatch`,
/// a banner on every dashboard page), persisted, until an operator acknowledges it.
@Suite("Audit log: integrity across restarts", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct AuditIntegrityTests {
    static func database(_ test: TestServer) -> URL { test.dataDirectory.appendingPathComponent("handover.sqlite") }

    /// The red team's reproduction: with the server stopped, entry 3 and its `leaf_hash` are
    /// rewritten in SQLite; on restart the server must not sign a checkpoint over that log.
    @Test func aHistoryRewrittenWhileTheServerWasStoppedIsNeverSignedAndTheAlarmOutlivesARestart() async throws {
        let first = try await TestServer.start(.sqlite)
        _ = try await AuditLogTests.handOvers(first, count: 2)
        let signed = try #require(try await first.server.signAuditCheckpoint())
        let oldNote = try await first.request(.GET, "/api/v1/audit/checkpoint", key: first.adminKey).text
        let verifier = try NoteVerifierKey(try await first.server.auditVerifierKey())
        try await first.stop()

        // Entry 3 rewritten with a leaf hash to match, as someone with the database file could.
        let forged = Array(#"{"type":"forged","v":1}"#.utf8)
        #expect(try await SQLiteByHand.execute("""
            UPDATE audit_entries SET leaf = CAST('\(String(decoding: forged, as: UTF8.self))' AS BLOB), leaf_hash = X'\(MerkleHash.leaf(forged).hex)' WHERE seq = 3
            """, on: Self.database(first)) == 0)

        let second = try await TestServer.start(.sqlite, sharing: first)
        #expect(try await second.server.signAuditCheckpoint() == nil, "no checkpoint over a rewritten history")
        let latest = try await second.request(.GET, "/api/v1/audit/checkpoint", key: second.adminKey).text
        #expect(latest == oldNote, "the latest signed checkpoint is still the one of \(signed) entries")
        let metrics = try await second.request(.GET, "/metrics").text
        #expect(metrics.contains("handover_audit_integrity_failed 1"), "\(metrics.suffix(800))")
        let browser = DashboardBrowser(second)
        _ = try await browser.signIn(key: second.adminKey)
        let overview = try await browser.get("/dashboard/devices")
        #expect(overview.text.contains("id=\"audit-alarm\""), "a banner on every page: \(overview.text.prefix(1500))")
        #expect(overview.text.contains("checkpoint of \(signed) entries"), "it says what failed: \(overview.text.prefix(1500))")
        // The self-check says the same, and keeps refusing.
        #expect(try await second.server.checkAuditLog() != nil)
        #expect(try await second.server.signAuditCheckpoint() == nil)

        // `handover audit verify` against the older published checkpoint names the rewrite.
        let entries = try await Self.export(second)
        #expect(throws: LogVerification.Failure.rootMismatch(size: signed)) {
            try LogVerification.verify(entries: entries, note: oldNote, key: verifier)
        }
        try await second.stop()

        // A third start, the alarm state read back from the database: still refusing, still shown.
        let third = try await TestServer.start(.sqlite, sharing: first)
        #expect(try await third.request(.GET, "/metrics").text.contains("handover_audit_integrity_failed 1"), "before any pass")
        #expect(try await third.server.signAuditCheckpoint() == nil)
        let again = DashboardBrowser(third)
        _ = try await again.signIn(key: third.adminKey)
        #expect(try await again.get("/dashboard").text.contains("id=\"audit-alarm\""))

        // The operator acknowledges, as `handover audit acknowledge` does, the server running.
        var configuration = ServerConfiguration()
        configuration.dataDirectory = third.dataDirectory
        await #expect(throws: AuditAcknowledgementRefusal.self, "a reason is required") {
            try await HandoverServer.acknowledgeAuditAlarms(configuration, operatorName: "Ada Lovelace", reason: "")
        }
        let acknowledged = try await HandoverServer.acknowledgeAuditAlarms(configuration, operatorName: "Ada Lovelace",
                                                                           reason: "entry 3 was rewritten by a test; the SIEM keeps the original")
        #expect(acknowledged.findings.count >= 2 && acknowledged.rehashed.isEmpty, "\(acknowledged)")
        let epoch = try #require(acknowledged.checkpoint)
        #expect(try Checkpoint(text: try SignedNote(serialized: epoch).text).extensions == ["handover-epoch acknowledged"])
        await #expect(throws: AuditAcknowledgementRefusal.self, "nothing left to acknowledge") {
            try await HandoverServer.acknowledgeAuditAlarms(configuration, operatorName: "Ada Lovelace", reason: "again")
        }
        // Checkpoints go on from the epoch; the alarm is gone from the gauge and the pages.
        _ = try await AuditLogTests.handOvers(third, count: 1)
        let resumed = try #require(try await third.server.signAuditCheckpoint(), "checkpoints go on from the new epoch")
        #expect(try await third.server.checkAuditLog() == nil)
        #expect(try await third.request(.GET, "/metrics").text.contains("handover_audit_integrity_failed 0"))
        #expect(try await again.get("/dashboard").text.contains("id=\"audit-alarm\"") == false)
        // The log says who acknowledged and why; the epoch's checkpoint verifies the export, the
        // checkpoint signed before the rewrite still names it.
        let after = try await Self.export(third)
        let acknowledgement = try #require(after.compactMap { try? AuditEvent.decode(leaf: $0.leaf) }.first { $0.type == "audit.acknowledged" })
        #expect(acknowledgement.actor == AuditActor(kind: "operator", name: "Ada Lovelace"), "\(acknowledgement)")
        #expect(acknowledgement.detail?["reason"]?.contains("the SIEM keeps the original") == true)
        #expect(acknowledgement.detail?["superseded checkpoint"]?.hasPrefix("\(signed) entries") == true, "\(acknowledgement)")
        #expect(try LogVerification.verify(entries: after, note: epoch, key: verifier).size < resumed)
        #expect(try LogVerification.verify(entries: after, note: try await third.request(.GET, "/api/v1/audit/checkpoint", key: third.adminKey).text,
                                           key: verifier).size == resumed)
        #expect(throws: LogVerification.Failure.rootMismatch(size: signed)) { try LogVerification.verify(entries: after, note: oldNote, key: verifier) }
        try await third.stop()

        // A fourth start: no alarm, and checkpoints go on.
        let fourth = try await TestServer.start(.sqlite, sharing: first)
        #expect(try await fourth.request(.GET, "/metrics").text.contains("handover_audit_integrity_failed 0"))
        #expect(try await fourth.server.signAuditCheckpoint() != nil)
        #expect(try await fourth.server.checkAuditLog() == nil)
        try await fourth.stop()
    }

    /// A deleted entry cannot be acknowledged away: it must be restored first.
    @Test func aGapIsNotAcknowledged() async throws {
        let test = try await TestServer.start(.sqlite)
        _ = try await AuditLogTests.handOvers(test, count: 1)
        try await test.server.signAuditCheckpoint()
        #expect(try await SQLiteByHand.execute("DELETE FROM audit_entries WHERE seq = 2", on: Self.database(test)) == 0)
        #expect(try await test.server.checkAuditLog() == "entry 2 is missing")
        #expect(try await test.server.signAuditCheckpoint() == nil)
        var configuration = ServerConfiguration()
        configuration.dataDirectory = test.dataDirectory
        do {
            _ = try await HandoverServer.acknowledgeAuditAlarms(configuration, operatorName: "Ada", reason: "gone")
            Issue.record("a gap was acknowledged")
        } catch let refusal as AuditAcknowledgementRefusal {
            #expect(refusal.description.contains("Entry 2 is missing"), "\(refusal)")
        }
        #expect(try await test.request(.GET, "/metrics").text.contains("handover_audit_integrity_failed 1"))
        try await test.stop()
    }

    /// Each checkpoint is published where the database is not: the `audit.checkpoint` webhook
    /// carries the signed note and the RFC 9162 §2.1.4 proof from the one before, which verifies
    /// against the checkpoint the receiver already holds; the SIEM receives each checkpoint after
    /// the entries it covers, and an alarm as an `audit.alarm` entry, at severity critical.
    @Test func everyCheckpointReachesTheWebhooksAndTheSIEMAndSoDoAlarms() async throws {
        try await TestServer.with(.sqlite) { test in
            let receiver = try await WebhookReceiver.start()
            let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["audit.checkpoint"]], key: test.adminKey)
            #expect(hook.status == 201, "\(hook.text)")
            let sql = try #require(test.server.databases.primary as? any SQLDatabase)
            let siem = RecordingSIEM()
            let stream = SIEMStream(destinations: [siem], sql: sql, clock: test.clock)
            let verifier = try NoteVerifierKey(try await test.server.auditVerifierKey())

            _ = try await AuditLogTests.handOvers(test, count: 1)
            let first = try #require(try await test.server.signAuditCheckpoint())
            _ = try await AuditLogTests.handOvers(test, count: 1)
            test.clock.advance(by: 1)
            let second = try #require(try await test.server.signAuditCheckpoint())
            #expect(try await test.server.deliverWebhooks() == 2)
            let events = try receiver.deliveries.map { try #require(try JSONSerialization.jsonObject(with: $0.body) as? [String: Any]) }
            try await receiver.stop()
            #expect(events.map { $0["type"] as? String } == ["audit.checkpoint", "audit.checkpoint"])
            let checkpoints = try events.map { event -> (note: String, checkpoint: Checkpoint, consistency: [String: Any]?) in
                let body = try #require(event["checkpoint"] as? [String: Any], "\(event)")
                let note = try #require(body["note"] as? String)
                let signed = try SignedNote(serialized: note)
                try signed.verify(with: verifier)
                return (note, try Checkpoint(text: signed.text), body["consistency"] as? [String: Any])
            }.sorted { $0.checkpoint.size < $1.checkpoint.size }  // delivered concurrently
            #expect(checkpoints.map(\.checkpoint.size) == [first, second])
            let proof = try #require(checkpoints[1].consistency, "the second carries the proof from the first")
            #expect(proof["from"] as? Int == first && proof["to"] as? Int == second)
            let path = (proof["path"] as? [String] ?? []).compactMap(MerkleHash.init(base64:))
            try MerkleProof.verifyConsistency(from: first, to: second, fromRoot: checkpoints[0].checkpoint.rootHash,
                                              toRoot: checkpoints[1].checkpoint.rootHash, path: path)
            // The same proof, made from the tree's right edge, checked by tlog-scales (RFC 9162 §2.1.4.2).
            if await PythonPeer.canImport("tlog_scales.tlog", skipping: "the webhook's consistency proof checked with tlog-scales") {
                let check: [String: Any] = ["consistency": [[
                    "from": first, "to": second, "oldRoot": checkpoints[0].checkpoint.rootHash.base64,
                    "newRoot": checkpoints[1].checkpoint.rootHash.base64, "path": proof["path"] ?? []]]]
                let (status, output) = try await PythonPeer.run("merkle_check.py", [], input: try JSONSerialization.data(withJSONObject: check))
                #expect(status == 0 && output.contains("verified 0 inclusion proofs and 1 consistency proofs"), "\(output)")
            }

            // The SIEM: every entry, each checkpoint right after the last entry it covers.
            #expect(try await stream.pass() > 0)
            let sizes = siem.messages.compactMap { message -> Int? in if case .checkpoint(let size, _, _) = message { size } else { nil } }
            #expect(sizes == [first, second], "\(sizes)")

            // An alarm: an audit.alarm entry, which the SIEM receives at severity critical.
            #expect(try await SQLiteByHand.execute(#"UPDATE audit_entries SET leaf = CAST(REPLACE(CAST(leaf AS TEXT), '"v":1', '"v":2') AS BLOB) WHERE seq = 1"#,
                                                   on: Self.database(test)) == 0)
            #expect(try await test.server.checkAuditLog() == "entry 1 does not match its leaf hash")
            #expect(try await stream.pass() > 0)
            let alarm = try #require(siem.messages.first { message in
                if case .entry(_, let leaf, _, _) = message { (try? AuditEvent.decode(leaf: leaf))?.type == "audit.alarm" } else { false }
            })
            let line = SyslogMessage.format(alarm, hostname: "handover.example.org")
            #expect(line.hasPrefix("<106>1 ") && line.contains(" audit.alarm ") && line.contains("entry 1 does not match its leaf hash"), "\(line)")
        }
    }

    /// Issue 63, finding 11: a failed run set to `completed` in `logout_runs` still has its signed
    /// receipt saying `failed`; the self-check compares the two and names the run.
    @Test func aRunOutcomeEditedInTheDatabaseIsNamedByTheSelfCheck() async throws {
        try await TestServer.with(.sqlite) { test in
            let receiver = try await WebhookReceiver.start()
            _ = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["audit.mismatch"]], key: test.adminKey)
            let runs = try await AuditLogTests.handOvers(test, count: 2)
            try await test.server.signAuditCheckpoint()
            #expect(try await test.server.checkAuditLog() == nil)
            let failed = runs[1]
            #expect(try await test.request(.GET, "/api/v1/logout-runs/\(failed)", key: test.adminKey).json["status"] as? String == "failed")

            #expect(try await SQLiteByHand.execute("UPDATE logout_runs SET status = 'completed' WHERE status = 'failed'", on: Self.database(test)) == 0)
            #expect(try await test.request(.GET, "/api/v1/logout-runs/\(failed)", key: test.adminKey).json["status"] as? String == "completed",
                    "the API shows the edited row")
            let finding = try #require(try await test.server.checkAuditLog(), "the self-check compares runs with their receipts")
            #expect(finding.lowercased().contains(failed.lowercased()) && finding.contains("failed") && finding.contains("completed"), "\(finding)")
            #expect(try await test.server.deliverWebhooks() == 1)
            let body = String(decoding: try #require(receiver.deliveries.first?.body), as: UTF8.self)
            try await receiver.stop()
            #expect(body.contains("audit.mismatch") && body.lowercased().contains(failed.lowercased()), "\(body)")
            #expect(try await test.request(.GET, "/metrics").text.contains("handover_audit_integrity_failed 1"))
            #expect(try await test.server.signAuditCheckpoint() != nil, "a run's alarm does not stop the checkpoints")

            // Acknowledged: no epoch (the history is whole), and the same finding is not raised again.
            var configuration = ServerConfiguration()
            configuration.dataDirectory = test.dataDirectory
            let acknowledged = try await HandoverServer.acknowledgeAuditAlarms(configuration, operatorName: "Ada", reason: "the run's row was mended by hand")
            #expect(acknowledged.checkpoint == nil && acknowledged.findings == [finding])
            #expect(try await test.server.checkAuditLog() == finding, "the row still differs")
            #expect(try await test.request(.GET, "/metrics").text.contains("handover_audit_integrity_failed 0"), "but it was acknowledged")
        }
    }

    /// A SIEM that keeps what it is sent.
    final class RecordingSIEM: SIEMDestination, @unchecked Sendable {
        private let lock = NSLock()
        private var received: [SIEMMessage] = []
        var name: String { "recording" }
        var messages: [SIEMMessage] { lock.withLock { received } }
        func send(_ messages: [SIEMMessage]) async throws { lock.withLock { received += messages } }
    }

    /// Every entry, as `handover audit export` writes it, for `LogVerification`.
    static func export(_ test: TestServer) async throws -> [LogVerification.Entry] {
        var entries: [LogVerification.Entry] = []
        let size = try #require(try await test.request(.GET, "/api/v1/audit/entries?start=0&end=0", key: test.adminKey).json["treeSize"] as? Int)
        for start in stride(from: 0, to: size, by: 1_000) {
            let page = try await test.request(.GET, "/api/v1/audit/entries?start=\(start)&end=\(min(size, start + 1_000))", key: test.adminKey)
            for entry in page.json["entries"] as? [[String: Any]] ?? [] {
                entries.append(.init(index: entry["index"] as? Int ?? -1, leaf: Data(base64Encoded: entry["leaf"] as? String ?? "") ?? Data(),
                                     recordedLeafHash: nil))
            }
        }
        return entries
    }
}
