import Foundation
import HandoverProtocol
import LinkCallbacks

/// Compares runs' stored outcomes with their receipts in the audit log: a failed run set to
/// `completed` in `logout_runs` (or an app's item set to `succeeded`) shows in the API, while its
/// signed receipt, a leaf of the log, still says what happened. The self-check runs it on a
/// window of receipts a pass, in turn, as it reads entries' bytes: a pass costs at most
/// ``window`` receipts (two statements) however long the log grows.
///
/// The receipt is read from the log's entry, whose bytes the self-check holds to the signed
/// tree; its JWS signature is not checked again here.
package struct RunOutcomeCheck: Sendable {
    /// How many receipts one pass compares at most.
    package static let window = 2_000

    /// Where the receipts and the runs are read (``AuditStore``).
    let store: AuditStore

    package init(store: AuditStore) {
        self.store = store
    }

    /// What one pass found, and the log index the next one starts from.
    package struct Result: Sendable, Equatable {
        /// The first run whose stored outcome differs from its receipt, named; nil when all agree.
        package var finding: String?
        package var next: Int
    }

    /// A run as stored: its status and its apps' items' statuses by app.
    package struct StoredRun: Sendable, Equatable {
        package var status: String?
        package var items: [UUID: String]

        package init(status: String?, items: [UUID: String]) {
            self.status = status
            self.items = items
        }
    }

    /// The rule: what differs between a receipt and the stored run, or nil when they agree.
    package static func difference(receipt: RunReceipt, stored: StoredRun) -> String? {
        let run = receipt.run.id.uuidString.lowercased()
        guard let status = stored.status else { return "run \(run): its signed receipt says \(receipt.run.status.rawValue), and the run is gone from logout_runs" }
        guard status == receipt.run.status.rawValue else {
            return "run \(run): its signed receipt says \(receipt.run.status.rawValue), the stored run says \(status)"
        }
        for app in receipt.apps {
            let item = stored.items[app.id]
            guard item == app.outcome.rawValue else {
                return "run \(run): its signed receipt says app \(app.name) \(app.outcome.rawValue), the stored item says \(item ?? "nothing")"
            }
        }
        return nil
    }

    /// Compares the receipts among the log's entries from `start` (wrapping to 0 at the end).
    package func check(from start: Int) async throws -> Result {
        let rows = try await store.receiptEntries(from: start, limit: Self.window)
        var receipts: [(seq: Int, receipt: RunReceipt)] = []
        for (seq, leaf) in rows {
            guard let leaf, let jws = try? AuditEvent.decode(leaf: leaf).receipt,
                  let receipt = Self.claims(of: jws) else {
                return Result(finding: "entry \(seq): a run.receipt entry whose receipt cannot be read", next: seq + 1)
            }
            receipts.append((seq, receipt))
        }
        let next = rows.count < Self.window ? 0 : (receipts.last.map { $0.seq + 1 } ?? 0)
        guard !receipts.isEmpty else { return Result(finding: nil, next: next) }
        let ids = receipts.map(\.receipt.run.id)
        let stored = try await store.storedRuns(ids)
        for (_, receipt) in receipts {
            if let difference = Self.difference(receipt: receipt, stored: stored[receipt.run.id] ?? StoredRun(status: nil, items: [:])) {
                return Result(finding: difference, next: next)
            }
        }
        return Result(finding: nil, next: next)
    }

    /// A compact JWS's claims as a receipt (its signature is not checked here).
    static func claims(of jws: String) -> RunReceipt? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = try? Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSONDecoder().decode(RunReceipt.self, from: payload)
    }
}
