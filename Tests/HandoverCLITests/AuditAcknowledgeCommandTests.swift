import Foundation
import Testing
import TestPeers
import TransparencyLog

/// Issue 63, finding 7, as the red team played it with the binaries: `handover serve` stopped,
/// entry 3 and its `leaf_hash` rewritten in SQLite, `serve` again. The server signs nothing over
/// the rewritten log; `handover audit verify` against the checkpoint signed before exits 1;
/// `handover audit acknowledge` records the operator and starts a new epoch.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AuditAcknowledgeCommandTests {
    @Test func aRewrittenHistoryIsRefusedNamedByVerifyAndAcknowledgedByAnOperator() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-ack-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let data = work.appendingPathComponent("data")
        let first = try await ServerProcess.start(dataDirectory: data)
        let key = try #require(first.firstAdminKey)
        // A few entries (each app registered is one), and a checkpoint over them.
        for name in ["notes", "chart", "mail", "pager"] {
            let app = try await first.request("POST", first.baseURL.absoluteString + "/api/v1/apps", json: [
                "name": name, "appIDs": ["ABCDE12345.com.example.\(name)"], "logoutAction": "https://\(name).example.com/logout",
            ], key: key)
            #expect(app.status == 201, "\(String(decoding: app.body, as: UTF8.self))")
        }
        let old = try await AuditStormTests.checkpoint(first, key: key)
        _ = await first.terminate()

        let forged = #"{"type":"forged","v":1}"#
        try await AuditStormTests.tamper(data, """
            UPDATE audit_entries SET leaf = CAST('\(forged)' AS BLOB), leaf_hash = X'\(MerkleHash.leaf(Array(forged.utf8)).hex)' WHERE seq = 3
            """)
        let second = try await ServerProcess.start(dataDirectory: data)
        let latest = try await AuditStormTests.checkpoint(second, key: key)
        #expect(latest.note == old.note, "no checkpoint over the rewritten log")
        let metrics = String(decoding: try await second.request("GET", second.baseURL.absoluteString + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("handover_audit_integrity_failed 1"), "\(metrics.suffix(600))")

        // verify against the checkpoint kept from before: exit 1, the root named.
        let export = work.appendingPathComponent("log.jsonl"), note = work.appendingPathComponent("old.txt"), verifier = work.appendingPathComponent("audit.key")
        try Data(old.note.utf8).write(to: note)
        let exported = try await HandoverBinary.run(["audit", "export", "--data-dir", data.path, "--key", verifier.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        try Data(exported.stdout.utf8).write(to: export)
        let refused = try await HandoverBinary.run(["audit", "verify", export.path, "--checkpoint", note.path, "--key", verifier.path])
        #expect(refused.status == 1 && refused.stderr.contains("do not make the checkpoint's root hash"), "\(refused.stdout)\(refused.stderr)")

        // The operator acknowledges (the server still running): a new epoch, recorded.
        let missingReason = try await HandoverBinary.run(["audit", "acknowledge", "--data-dir", data.path, "--operator", "Ada Lovelace"])
        #expect(missingReason.status == 64, "\(missingReason.stderr)")
        let acknowledged = try await HandoverBinary.run(["audit", "acknowledge", "--data-dir", data.path, "--operator", "Ada Lovelace",
                                                        "--reason", "entry 3 rewritten in a drill; the SIEM holds the original"])
        #expect(acknowledged.status == 0 && acknowledged.stdout.contains("a new epoch starts at this checkpoint")
                && acknowledged.stdout.contains("handover-epoch acknowledged"), "\(acknowledged.stdout)\(acknowledged.stderr)")
        let again = try await HandoverBinary.run(["audit", "acknowledge", "--data-dir", data.path, "--operator", "Ada Lovelace", "--reason", "again"])
        #expect(again.status == 1 && again.stderr.contains("no open alarm"), "\(again.stdout)\(again.stderr)")
        let resumed = try await AuditStormTests.checkpoint(second, key: key)
        #expect(resumed.size > old.size && resumed.note != old.note, "checkpoints go on")
        _ = await second.terminate()

        // The new checkpoint verifies the export; the old one still names the rewrite, even given together.
        let current = work.appendingPathComponent("current.txt")
        try Data(resumed.note.utf8).write(to: current)
        let reexported = try await HandoverBinary.run(["audit", "export", "--data-dir", data.path])
        try Data(reexported.stdout.utf8).write(to: export)
        let verified = try await HandoverBinary.run(["audit", "verify", export.path, "--checkpoint", current.path, "--key", verifier.path])
        #expect(verified.status == 0 && verified.stdout.contains("verified: \(resumed.size) entries"), "\(verified.stdout)\(verified.stderr)")
        #expect(reexported.stdout.contains(#""type":"audit.acknowledged""#) && reexported.stdout.contains("Ada Lovelace"))
        let both = try await HandoverBinary.run(["audit", "verify", export.path, "--checkpoint", current.path, "--checkpoint", note.path, "--key", verifier.path])
        #expect(both.status == 1 && both.stderr.contains(note.path), "\(both.stdout)\(both.stderr)")
    }
}
