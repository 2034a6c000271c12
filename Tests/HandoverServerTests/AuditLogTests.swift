import Foundation
import HandoverCore
import HandoverProtocol
import HandoverServer
import LinkCallbacks
import SQLKit
import Testing
import TestPeers
import TransparencyLog

/// Issue 42: a signed receipt for every hand-over, checked with joserfc from the JWKS alone; the
/// audit log's checkpoints, inclusion and consistency proofs checked with tlog-scales, an
/// implementation of RFC 9162 we did not write (Tests/Peers/merkle_check.py says where its
/// hashing is); tampering caught by the self-check.
@Suite("Audit log and receipts", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct AuditLogTests {
    /// Runs `count` hand-overs on `test`, half completed (every app answers), half failed (one
    /// app answers with an error); returns the run ids.
    static func handOvers(_ test: TestServer, count: Int) async throws -> [String] {
        for name in ["Notes", "Chart"] where try await test.request(.GET, "/api/v1/apps", key: test.adminKey).text.contains(name) == false {
            try await test.registerTarget(name)
        }
        var runs: [String] = []
        for index in 0..<count {
            let device = try await test.registerDevice("ward-7-phone-\(index)", site: index % 2 == 0 ? "ICU" : "ward-7")
            let run = try await LogoutRunTests.startRun(test, device: device)
            for item in run.items {
                let app = try #require(item["app"] as? String)
                let ulc = try UniversalLinkCallback(parsing: try #require(item["link"] as? String))
                let url = (index % 2 == 1 && app == "Chart" ? ulc.error : ulc.success).absoluteString
                let reply = try await test.request(.POST, "/api/v1/logout-runs/\(run.id)/callbacks", json: ["url": url], key: device.key)
                #expect(reply.status == 200, "\(reply.text)")
            }
            runs.append(run.id)
        }
        return runs
    }

    /// RFC 7515 §3.1 (compact serialization), RFC 7518 §3.4 (ES256), checked by joserfc with the
    /// server's JWKS; the claims as `RunReceipt` says.
    @Test(arguments: TestDatabase.available)
    func everyRunThatEndsHasAReceiptThatJoserfcVerifiesFromTheJWKSAlone(database: TestDatabase) async throws {
        // The JWKS is published with a public URL (the issuer).
        try await TestServer.with(database, publicURL: "https://handover.example.org") { test in
            let runs = try await Self.handOvers(test, count: 6)
            var receipts: [String] = []
            for run in runs {
                let reply = try await test.request(.GET, "/api/v1/logout-runs/\(run)/receipt", key: test.adminKey)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.headers.first(name: "Content-Type") == "application/jwt")
                receipts.append(reply.text)
            }
            let claims = try receipts.map { token -> RunReceipt in
                let payload = try #require(token.split(separator: ".").dropFirst().first)
                return try JSONDecoder().decode(RunReceipt.self, from: try Base64URL.decode(String(payload)))
            }
            #expect(claims.map(\.run.id.uuidString).map { $0.lowercased() } == runs.map { $0.lowercased() })
            #expect(claims[0].run.status == .completed && claims[1].run.status == .failed)
            #expect(claims[1].apps.first { $0.name == "Chart" }?.outcome == .failed)
            #expect(claims[0].apps.allSatisfy { $0.method == .ulc && $0.answeredBy == "launcher" })
            #expect(claims[0].device.site == "ICU" && claims[1].device.site == "ward-7")
            #expect(claims.allSatisfy { $0.handoverVersion == HandoverVersion.current })

            let jwks = try await test.request(.GET, "/oauth/jwks")
            #expect(jwks.status == 200, "\(jwks.text)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
            try jwks.body.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            guard await PythonPeer.canImport("joserfc", skipping: "receipts checked with joserfc") else { return }
            let (status, output) = try await PythonPeer.run("verify_receipt.py", [file.path], input: Data(receipts.joined(separator: "\n").utf8))
            #expect(status == 0, "\(output)")
            #expect(output.contains("verified 6 receipts with joserfc"), "\(output)")
            // One changed byte in a signature is refused.
            var forged = receipts[0]
            forged.replaceSubrange(forged.index(before: forged.endIndex)..., with: forged.hasSuffix("A") ? "B" : "A")
            let refused = try await PythonPeer.run("verify_receipt.py", [file.path], input: Data(forged.utf8))
            #expect(refused.status == 1, "\(refused.output)")
        }
    }

    @Test func aRunningRunHasNoReceiptYetAndTheRunsWebhookCarriesIt() async throws {
        try await TestServer.with(.sqlite) { test in
            let receiver = try await WebhookReceiver.start()
            let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["run.completed"]], key: test.adminKey)
            #expect(hook.status == 201, "\(hook.text)")
            try await test.registerTarget("Notes")
            let device = try await test.registerDevice()
            let run = try await LogoutRunTests.startRun(test, device: device)
            let early = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)/receipt", key: device.key)
            #expect(early.status == 404 && early.text.contains("still running"), "\(early.text)")
            let ulc = try UniversalLinkCallback(parsing: try #require(run.link("Notes")))
            _ = try await test.request(.POST, "/api/v1/logout-runs/\(run.id)/callbacks", json: ["url": ulc.success.absoluteString], key: device.key)
            let receipt = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)/receipt", key: device.key)
            #expect(receipt.status == 200, "the run's own device may read it: \(receipt.text)")
            // The run's page offers it to download.
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/runs/\(run.id.lowercased())")
            #expect(page.text.contains("/receipt\">Download the signed receipt"), "\(page.text)")
            let download = try await browser.get("/dashboard/runs/\(run.id.lowercased())/receipt")
            #expect(download.status == 200 && download.text == receipt.text)
            #expect(download.headers.first(name: "Content-Disposition")?.contains("receipt-") == true)
            let audit = try await browser.get("/dashboard/audit")
            #expect(audit.status == 200 && audit.text.contains("Verifier key") && audit.text.contains("No SIEM is configured"), "\(audit.text)")
            #expect(try await test.server.deliverWebhooks() == 1)
            let body = try #require(receiver.deliveries.first?.body)
            try await receiver.stop()
            let payload = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(payload["receipt"] as? String == receipt.text)
        }
    }

    /// RFC 9162 §2.1.3 and §2.1.4, checked by tlog-scales: inclusion proofs of entries drawn at
    /// random, and a consistency proof between two checkpoints; C2SP's signed checkpoint checked
    /// with the published key.
    @Test(arguments: TestDatabase.available)
    func proofsFromTheRoutesVerifyWithAnIndependentImplementation(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            _ = try await Self.handOvers(test, count: 4)
            let first = try #require(try await test.server.signAuditCheckpoint())
            let firstNote = try await test.request(.GET, "/api/v1/audit/checkpoint", key: test.adminKey).text
            _ = try await Self.handOvers(test, count: 3)
            test.clock.advance(by: 1)
            let second = try #require(try await test.server.signAuditCheckpoint())
            #expect(second > first)
            #expect(try await test.server.signAuditCheckpoint() == nil, "nothing new: no checkpoint")
            let note = try await test.request(.GET, "/api/v1/audit/checkpoint", key: test.adminKey)
            #expect(note.status == 200 && note.headers.first(name: "Content-Type")?.hasPrefix("text/plain") == true)
            let key = try await test.request(.GET, "/api/v1/audit/key", key: test.adminKey).text
            let verifier = try NoteVerifierKey(key)
            let signed = try SignedNote(serialized: note.text)
            try signed.verify(with: verifier)
            let checkpoint = try Checkpoint(text: signed.text)
            #expect(checkpoint.size == second)
            let old = try Checkpoint(text: try SignedNote(serialized: firstNote).text)

            let entries = try await test.request(.GET, "/api/v1/audit/entries?start=0&end=\(second)", key: test.adminKey)
            let list = try #require(entries.json["entries"] as? [[String: Any]])
            #expect(list.count == second)
            #expect(list.contains { ($0["entry"] as? [String: Any])?["type"] as? String == "run.receipt" })
            #expect(list.contains { ($0["entry"] as? [String: Any])?["type"] as? String == "device.run_completed" })
            #expect(list.first.flatMap { ($0["entry"] as? [String: Any])?["type"] as? String } == "server.started")

            var inclusion: [[String: Any]] = []
            for index in (0..<second).shuffled().prefix(20) {
                let proof = try await test.request(.GET, "/api/v1/audit/proofs/inclusion?index=\(index)&size=\(second)", key: test.adminKey)
                #expect(proof.status == 200, "\(proof.text)")
                #expect(proof.json["treeSize"] as? Int == second && proof.json["index"] as? Int == index)
                inclusion.append(["leaf": list[index]["leaf"] as? String ?? "", "index": index, "treeSize": second,
                                  "root": checkpoint.rootHash.base64, "path": proof.json["path"] ?? []])
            }
            let consistency = try await test.request(.GET, "/api/v1/audit/proofs/consistency?from=\(first)&to=\(second)", key: test.adminKey)
            #expect(consistency.status == 200, "\(consistency.text)")
            let checks: [String: Any] = [
                "inclusion": inclusion,
                "consistency": [["from": first, "to": second, "oldRoot": old.rootHash.base64, "newRoot": checkpoint.rootHash.base64,
                                 "path": consistency.json["path"] ?? []]],
            ]
            guard await PythonPeer.canImport("tlog_scales.tlog", skipping: "proofs checked with tlog-scales") else { return }
            let (status, output) = try await PythonPeer.run("merkle_check.py", [], input: try JSONSerialization.data(withJSONObject: checks))
            #expect(status == 0, "\(output)")
            #expect(output.contains("verified 20 inclusion proofs and 1 consistency proofs"), "\(output)")

            // Typed refusals for bad queries.
            let bad = try await test.request(.GET, "/api/v1/audit/proofs/inclusion?index=\(second)&size=\(second)", key: test.adminKey)
            #expect(bad.status == 400 && bad.json["field"] as? String == "index", "\(bad.text)")
            let viewer = try await test.request(.GET, "/api/v1/audit/checkpoint", key: try await test.server.createAPIKey(name: "v", scope: .viewer))
            #expect(viewer.status == 403, "\(viewer.text)")
        }
    }

    /// Two instances on one PostgreSQL database append hand-overs at once, callbacks landing on
    /// either: one gapless sequence (the log never forks), which both sign and check alike.
    @Test func twoInstancesAppendToOneSequence() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await TestServer.start(.postgres)
        let b = try await TestServer.start(.postgres, sharing: a)
        try await a.registerTarget("Notes")
        try await a.registerTarget("Chart")
        var devices: [(id: String, key: String)] = []
        for index in 0..<12 { devices.append(try await a.registerDevice("ward-7-phone-\(index)")) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, device) in devices.enumerated() {
                let (starter, reporter) = index % 2 == 0 ? (a, b) : (b, a)
                group.addTask {
                    let run = try await LogoutRunTests.startRun(starter, device: device)
                    for item in run.items {
                        let ulc = try UniversalLinkCallback(parsing: try #require(item["link"] as? String))
                        let reply = try await reporter.request(.POST, "/api/v1/logout-runs/\(run.id)/callbacks",
                                                               json: ["url": ulc.success.absoluteString], key: device.key)
                        #expect(reply.status == 200, "\(reply.text)")
                    }
                }
            }
            try await group.waitForAll()
        }
        async let signedByA = a.server.signAuditCheckpoint()
        async let signedByB = b.server.signAuditCheckpoint()
        let signed = [try await signedByA, try await signedByB].compactMap { $0 }
        #expect(!signed.isEmpty)
        #expect(try await a.server.checkAuditLog() == nil)
        #expect(try await b.server.checkAuditLog() == nil)
        #expect(try await a.server.auditVerifierKey() == (try await b.server.auditVerifierKey()), "one key, made once")
        let entries = try await a.request(.GET, "/api/v1/audit/entries?start=0", key: a.adminKey)
        let list = try #require(entries.json["entries"] as? [[String: Any]])
        #expect(list.map { $0["index"] as? Int ?? -1 } == Array(0..<list.count))
        #expect(list.filter { ($0["entry"] as? [String: Any])?["type"] as? String == "run.receipt" }.count == 12)
        try await b.stop()
        try await a.stop()
    }

    /// Appends of one entry, of several and of more than a statement holds (500) take the next
    /// indexes with no gap, and the counter moves by their number: on SQLite one statement and a
    /// trigger do it, on PostgreSQL the counter row's update.
    @Test(arguments: TestDatabase.available)
    func appendsTakeConsecutiveIndexesAndMoveTheCounter(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            let db = test.server.databases.primary
            let sql = try #require(db as? any SQLDatabase)
            func size() async throws -> Int {
                try #require(try await sql.raw("SELECT size FROM audit_head WHERE id = 1").first()).decode(column: "size", as: Int.self)
            }
            let before = try await size()
            let now = Date()
            for count in [1, 3, 501, 2] {
                let events = (0..<count).map { AuditEvent(type: "test.append", at: now, actor: .server, detail: ["n": "\($0)"]) }
                try await AuditTrail.append(events, on: db, now: now)
            }
            let rows = try await sql.raw("SELECT seq, leaf FROM audit_entries WHERE seq >= \(bind: before) ORDER BY seq").all()
            #expect(rows.count == 507)
            #expect(try rows.map { try $0.decode(column: "seq", as: Int.self) } == Array(before..<(before + 507)))
            #expect(try await size() == before + 507)
            let details = try rows.suffix(2).map { try AuditEvent.decode(leaf: try $0.decode(column: "leaf", as: Data.self)).detail?["n"] }
            #expect(details == ["0", "1"], "in their order")
        }
    }

    /// The self-check finds a changed entry and a deleted one, and raises `audit.mismatch` once.
    @Test func theSelfCheckCatchesAChangedByteAndADeletedEntry() async throws {
        try await TestServer.with(.sqlite) { test in
            let receiver = try await WebhookReceiver.start()
            _ = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["audit.mismatch"]], key: test.adminKey)
            _ = try await Self.handOvers(test, count: 2)
            try await test.server.signAuditCheckpoint()
            #expect(try await test.server.checkAuditLog() == nil)
            try await Self.tamper(test, #"UPDATE audit_entries SET leaf = CAST(REPLACE(CAST(leaf AS TEXT), '"v":1', '"v":2') AS BLOB) WHERE seq = 5"#)
            let finding = try await test.server.checkAuditLog()
            #expect(finding == "entry 5 does not match its leaf hash", "\(finding ?? "nil")")
            #expect(try await test.server.checkAuditLog() == finding)
            #expect(try await test.server.deliverWebhooks() == 1, "raised once")
            let body = String(decoding: try #require(receiver.deliveries.first?.body), as: UTF8.self)
            try await receiver.stop()
            #expect(body.contains("audit.mismatch") && body.contains("entry 5"), "\(body)")
            try await Self.tamper(test, "DELETE FROM audit_entries WHERE seq = 3")
            #expect(try await test.server.checkAuditLog() == "entry 3 is missing")
            let metrics = try await test.request(.GET, "/metrics").text
            #expect(metrics.contains("handover_audit_self_checks_total{result=\"mismatch\"} 3"), "\(metrics)")
        }
    }

    /// A self-check reads every leaf hash but only a window of entries' bytes, in turn: a byte
    /// changed outside the window is named when the window reaches it; an entry rewritten with
    /// a matching hash, or deleted, is caught by the root or the missing index at once.
    @Test func theSelfCheckReadsEntriesBytesInTurnAndEveryHashEachTime() async throws {
        try await TestServer.with(.sqlite) { test in
            let db = test.server.databases.primary
            let now = Date()
            try await AuditTrail.append((0..<12).map { AuditEvent(type: "test.entry", at: now, actor: .server, detail: ["n": "\($0)"]) },
                                        on: db, now: now)
            try await test.server.signAuditCheckpoint()
            let log = AuditLog(sql: try #require(db as? any SQLDatabase))
            let key = try NoteVerifierKey(try await test.server.auditVerifierKey())
            let size = try await log.size()
            func check(from start: Int) async throws -> AuditLog.SelfCheck {
                try await log.selfCheck(key: key, bytesFrom: start, window: 4)
            }
            #expect(try await check(from: 0) == .init(finding: nil, nextByteCheck: 4))
            #expect(try await check(from: size - 2) == .init(finding: nil, nextByteCheck: 0), "the last window wraps to the start")
            // A byte of the second-to-last entry, its hash left alone.
            let changed = size - 2
            try await Self.tamper(test, #"UPDATE audit_entries SET leaf = CAST(REPLACE(CAST(leaf AS TEXT), '"v":1', '"v":2') AS BLOB) WHERE seq = "# + "\(changed)")
            #expect(try await check(from: 0) == .init(finding: nil, nextByteCheck: 4), "outside the window, the hashes still agree")
            #expect(try await check(from: size - 4) == .init(finding: "entry \(changed) does not match its leaf hash", nextByteCheck: size - 4),
                    "named when the window reaches it, and again until it is mended")
            // The entry rewritten with a hash that matches: the root no longer does, whatever the window.
            try await Self.tamper(test, "UPDATE audit_entries SET leaf_hash = X'\(MerkleHash.leaf(Array("forged".utf8)).hex)', leaf = CAST('forged' AS BLOB) WHERE seq = \(changed)")
            #expect(try await check(from: 0).finding == "the entries' root differs from the checkpoint of \(size) entries")
            try await Self.tamper(test, "DELETE FROM audit_entries WHERE seq = \(changed)")
            #expect(try await check(from: 0).finding == "entry \(changed) is missing")
        }
    }

    /// Changes the stored log by hand, as someone with the database file could.
    static func tamper(_ test: TestServer, _ statement: String) async throws {
        #expect(try await SQLiteByHand.execute(statement, on: test.dataDirectory.appendingPathComponent("handover.sqlite")) == 0)
    }
}
