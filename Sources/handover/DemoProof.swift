import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `handover demo` shows of the proof side after each hand-over: the run's signed receipt,
/// verified against the server's published keys as `handover audit verify-receipt` does it, and
/// the audit log's latest signed checkpoint (how many entries it covers).
enum DemoProof {
    /// Two lines: the receipt and the checkpoint, or why either could not be shown.
    static func lines(run: String, server: URL, adminKey: String) async -> [String] {
        var lines: [String] = []
        let receipt = await text(server.appendingPathComponent("api/v1/logout-runs/\(run)/receipt"), key: adminKey)
        let jwks = await text(server.appendingPathComponent("oauth/jwks"), key: nil)
        if let receipt, let jwks {
            do {
                let claims = try ReceiptVerification.verify(receipt.trimmingCharacters(in: .whitespacesAndNewlines), jwks: Data(jwks.utf8))
                let parsed = try? JSONSerialization.jsonObject(with: Data(claims.utf8)) as? [String: Any]
                let apps = (parsed?["apps"] as? [Any])?.count ?? 0
                lines.append("Receipt: signed by the server (ES256), verified against /oauth/jwks; it names the device, who held it and "
                             + "\(apps) apps' outcomes. Check one offline: handover audit verify-receipt receipt.jwt --jwks \(server.absoluteString)/oauth/jwks")
            } catch {
                lines.append("Receipt: it does not verify: \(error)")
            }
        } else {
            lines.append("Receipt: not available from GET /api/v1/logout-runs/\(run)/receipt")
        }
        // The checkpoint's text: origin, size, root hash, blank line, signature.
        if let checkpoint = await text(server.appendingPathComponent("api/v1/audit/checkpoint"), key: adminKey, method: "POST"),
           let size = checkpoint.split(separator: "\n").dropFirst().first.flatMap({ Int($0) }) {
            lines.append("Audit log: \(size) entries under a signed checkpoint (the receipt, every device step, sign-in and admin action); "
                         + "handover audit export and handover audit verify prove it offline.")
        } else {
            lines.append("Audit log: no signed checkpoint from POST /api/v1/audit/checkpoint")
        }
        return lines
    }

    private static func text(_ url: URL, key: String?, method: String = "GET") async -> String? {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
