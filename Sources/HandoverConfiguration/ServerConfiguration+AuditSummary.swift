import Foundation
import HandoverCore
import HandoverProtocol
import Mail

extension ServerConfiguration {
    /// The configuration a server starts with, as the audit log's `server.started` entry records
    /// it: what decides how hand-overs are handled and proven. No secret is in it (no key, no
    /// password, no token: the database URL's user and password are left out).
    package var auditSummary: [String: String] {
        var summary: [String: String] = [
            "version": HandoverVersion.current,
            "public_url": publicURL?.absoluteString ?? "(none: plain http on \(host):\(port))",
            "database": databaseURL == nil ? "sqlite" : "postgresql",
            "developer_mode": String(developerMode),
            "private_webhook_targets": String(allowsPrivateWebhookTargets),
            "lending_period_seconds": custody.fleetLendingPeriod.map { String(Int($0)) } ?? "none",
            "custody_retention_seconds": String(Int(custody.retention)),
        ]
        if let mdm { summary["mdm"] = "\(mdm.connector.name) \(mdm.action.rawValue)\(mdm.dryRun ? " (dry run)" : "")" }
        if let adminSignIn { summary["admin_sign_in_issuer"] = adminSignIn.issuer }
        if let smtp { summary["smtp_host"] = smtp.host }
        return summary
    }
}
