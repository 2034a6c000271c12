import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandoverServer
import Logging
import TransparencyLog

/// `handover audit`: the audit log exported and verified, and receipts verified, offline.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Export the audit log, verify it or a hand-over's receipt offline, and acknowledge its alarms.",
        discussion: """
            The audit log is append-only: every receipt, device step, admin action and sign-in is \
            a leaf of a Merkle tree (RFC 9162), and the server signs a checkpoint of it (C2SP \
            signed note, Ed25519) at least every 30 seconds while it grows. docs/audit.md says \
            what each entry holds.

            Examples:
              handover audit export --checkpoint cp.txt --key audit.key > log.jsonl
              handover audit verify log.jsonl --checkpoint cp.txt --key audit.key
              handover audit verify log.jsonl --checkpoint old.txt --checkpoint cp.txt --key audit.key
              handover audit verify-receipt receipt.jwt --jwks https://handover.example.org/oauth/jwks
              handover audit acknowledge --operator "Ada Lovelace" --reason "restored entry 3 from the SIEM"
            """,
        subcommands: [Export.self, Verify.self, VerifyReceipt.self, Acknowledge.self]
    )

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the audit log's entries as JSON lines (or CSV for people).",
            discussion: """
                Each JSON line holds the entry's index, 'leaf' (base64 of the exact bytes hashed), \
                'leafHash' and the entry decoded. Use the same --data-dir or --database as 'handover \
                serve'; the server may be running. 'handover audit verify' needs a whole export (no \
                --from, --to or --site) and the checkpoint and key written with it.
                """
        )

        @Option(help: ArgumentHelp("Entries at or after this time: ISO 8601, or a day (2026-11-26).", valueName: "time"))
        var from: String?

        @Option(help: ArgumentHelp("Entries before this time (as --from).", valueName: "time"))
        var to: String?

        @Option(help: ArgumentHelp("Only entries about this site's devices.", valueName: "site"))
        var site: String?

        @Flag(help: "CSV (RFC 4180) for people, instead of JSON lines.")
        var csv = false

        @Option(help: ArgumentHelp("Also write the latest signed checkpoint to this file.", valueName: "file"))
        var checkpoint: String?

        @Option(help: ArgumentHelp("Also write the checkpoints' verifier key to this file.", valueName: "file"))
        var key: String?

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let from = try from.map { try CustodyReportCommand.parse($0, option: "--from") }
            let to = try to.map { try CustodyReportCommand.parse($0, option: "--to") }
            if let from, let to, to <= from { throw ValidationError("--to: it must be after --from.") }
            var logger = Logger(label: "handover")
            logger.logLevel = .warning
            let export = try await HandoverServer.auditExport(try storage.configuration(), from: from, to: to, site: site, csv: csv, logger: logger)
            FileHandle.standardOutput.write(Data(export.text.utf8))
            if let checkpoint {
                guard let note = export.checkpoint else { throw AuditCommandFailure("no checkpoint has been signed yet: start the server, or wait 30 s after the first entry") }
                try Data(note.utf8).write(to: URL(fileURLWithPath: checkpoint))
            }
            if let key, let verifier = export.verifierKey { try Data((verifier + "\n").utf8).write(to: URL(fileURLWithPath: key)) }
            FileHandle.standardError.write(Data("exported \(export.entries) audit entries\n".utf8))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an export against a signed checkpoint; name the first entry that does not verify.",
            discussion: """
                Checks the checkpoint's signature by the key, then that every entry from 0 to the \
                checkpoint's size is there once, that each entry's bytes make the leaf hash recorded \
                with it, and that the entries make the checkpoint's root hash (RFC 9162). Exits 0 when \
                all hold, 1 naming the first entry that does not.

                Give --checkpoint once for each checkpoint you kept (from your SIEM, the \
                audit.checkpoint webhook, or earlier exports): each is checked against the same \
                export, so a history rewritten since an older checkpoint was signed is named even when \
                a newer one was signed over it.
                """
        )

        @Argument(help: ArgumentHelp("The JSON-lines export ('handover audit export').", valueName: "export"))
        var export: String

        @Option(help: ArgumentHelp("A signed checkpoint (GET /api/v1/audit/checkpoint); repeat it for each you kept.", valueName: "file"))
        var checkpoint: [String]

        @Option(help: ArgumentHelp("The verifier key, <name>+<hash>+<key> (GET /api/v1/audit/key).", valueName: "file"))
        var key: String

        func validate() throws {
            guard !checkpoint.isEmpty else { throw ValidationError("--checkpoint: give the signed checkpoint to verify against (GET /api/v1/audit/checkpoint).") }
        }

        func run() throws {
            let verifier: NoteVerifierKey
            do { verifier = try NoteVerifierKey(try AuditCommand.read(key, what: "--key")) } catch let error as CheckpointError {
                throw ValidationError("--key: \(error)")
            }
            var entries: [LogVerification.Entry] = []
            let decoder = JSONDecoder()
            for (number, line) in try AuditCommand.read(export, what: "export").split(separator: "\n").enumerated() where !line.isEmpty {
                guard let exported = try? decoder.decode(ExportedAuditEntry.self, from: Data(line.utf8)),
                      let leaf = Data(base64Encoded: exported.leaf) else {
                    throw AuditCommandFailure("\(export):\(number + 1): not an exported entry (index, leaf as base64)")
                }
                entries.append(.init(index: exported.index, leaf: leaf, recordedLeafHash: exported.leafHash.flatMap(MerkleHash.init(base64:))))
            }
            for file in checkpoint {
                let note = try AuditCommand.read(file, what: "--checkpoint")
                do {
                    let verified = try LogVerification.verify(entries: entries, note: note, key: verifier)
                    print("verified: \(verified.size) entries make the root \(verified.rootHash.base64) signed by \(verifier.name)"
                          + (checkpoint.count > 1 ? " (\(file))" : ""))
                } catch {
                    throw AuditCommandFailure(checkpoint.count > 1 ? "\(file): \(error.description)" : error.description)
                }
            }
        }
    }

    struct Acknowledge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Acknowledge the audit log's alarms, say who and why, and start a new epoch.",
            discussion: """
                While an alarm about the log's history is open (its stored entries no longer make a \
                checkpoint it signed), the server signs no checkpoint, shows a banner on every \
                dashboard page and sets handover_audit_integrity_failed to 1. Find out what changed \
                first (docs/operations.md, "The audit log's alarm"). This command then records in the \
                log who acknowledged the alarms and why, makes each entry's stored leaf hash the hash \
                of its bytes, and signs a checkpoint of the log as it now stands, marked as the start \
                of an epoch; checkpoints go on from it. Checkpoints signed before keep saying what the \
                log was. Run it where the server runs (it needs the server's encryption key) with the \
                same --data-dir or --database; the server may be running. It refuses while an entry is \
                missing: restore it first.
                """
        )

        @Option(name: .customLong("operator"), help: ArgumentHelp("Who acknowledges: your name, as the log records it.", valueName: "name"))
        var operatorName: String

        @Option(help: ArgumentHelp("Why the log may go on as it is now stored (up to 500 characters).", valueName: "text"))
        var reason: String

        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard (1...100).contains(operatorName.count) else { throw ValidationError("--operator: give your name, 1 to 100 characters.") }
            guard (1...500).contains(reason.count) else { throw ValidationError("--reason: say why, 1 to 500 characters.") }
        }

        func run() async throws {
            var logger = Logger(label: "handover")
            logger.logLevel = .warning
            let done: HandoverServer.AuditAcknowledged
            do {
                done = try await HandoverServer.acknowledgeAuditAlarms(try storage.configuration(), operatorName: operatorName, reason: reason, logger: logger)
            } catch let refusal as AuditAcknowledgementRefusal {
                throw AuditCommandFailure(refusal.description)
            }
            print("acknowledged \(done.findings.count) alarm(s):")
            for finding in done.findings { print("  \(finding)") }
            if !done.rehashed.isEmpty { print("leaf hashes made the hash of their entry's bytes: \(done.rehashed.map(String.init).joined(separator: ", "))") }
            if let checkpoint = done.checkpoint { print("a new epoch starts at this checkpoint:\n\(checkpoint)") }
        }
    }

    struct VerifyReceipt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-receipt",
            abstract: "Check a hand-over's receipt (a JWS) with the server's published keys, and print it.",
            discussion: """
                The receipt is what GET /api/v1/logout-runs/{id}/receipt answers, or the 'receipt' \
                of a run.completed or run.failed webhook. Checks typ handover-receipt+jwt, ES256 and \
                the signature by the key its kid names in the JWKS; prints the claims.
                """
        )

        @Argument(help: ArgumentHelp("The receipt: a file holding the compact JWS.", valueName: "file"))
        var receipt: String

        @Option(help: ArgumentHelp("The server's JWKS: a file, or its URL (https://…/oauth/jwks).", valueName: "file-or-url"))
        var jwks: String

        func run() async throws {
            let token = try AuditCommand.read(receipt, what: "receipt").trimmingCharacters(in: .whitespacesAndNewlines)
            let keys: Data
            if let url = URL(string: jwks), url.scheme == "https" || url.scheme == "http" {
                keys = try await URLSession.shared.data(from: url).0
            } else {
                keys = Data(try AuditCommand.read(jwks, what: "--jwks").utf8)
            }
            do {
                print(try ReceiptVerification.verify(token, jwks: keys))
            } catch {
                throw AuditCommandFailure("the receipt does not verify: \(error)")
            }
        }
    }

    static func read(_ path: String, what: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("\(what): cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A check that failed: printed, exit status 1.
struct AuditCommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
