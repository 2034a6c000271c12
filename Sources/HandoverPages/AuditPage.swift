import Foundation
import HandoverCore

/// The Audit page (`/dashboard/audit`, admins only): the audit log's size, its latest signed
/// checkpoint and verifier key, each SIEM's delivery log (how far it has the log, its attempts
/// and last error), and Shared Signals (``SignalsSection``): each stream's deliveries and the
/// identity provider's latest SETs.
package enum AuditPage {
    /// The page of a log of `size` entries whose latest checkpoint is `checkpoint` (nil before
    /// the first), verified with `verifierKey`; `destinations` are the SIEMs' delivery logs.
    @HTMLBuilder
    package static func body(size: Int, checkpoint: AuditLog.StoredCheckpoint?, verifierKey key: String, destinations: [SIEMStream.Status],
                             streams: [SharedSignalsReport.Stream], received: [SharedSignalsReport.Received]) -> HTML {
        HTML.element("p", ["class": "note"]) {
            "Every receipt, device step, admin action and sign-in, as a Merkle tree (RFC 9162) with signed checkpoints. "
            "Verify it offline with "
            HTML.element("code") { "handover audit export" }
            " and "
            HTML.element("code") { "handover audit verify" }
            " (docs/audit.md)."
        }
        HTML.element("table", ["id": "audit-log"]) {
            HTML.element("tr") { HTML.element("th") { "Entries" }; HTML.element("td") { String(size) } }
            HTML.element("tr") {
                HTML.element("th") { "Latest checkpoint" }
                HTML.element("td") {
                    if let checkpoint {
                        "\(checkpoint.size) entries, signed \(DashboardLayout.time(checkpoint.createdAt))"
                    } else {
                        "none yet"
                    }
                }
            }
            HTML.element("tr") { HTML.element("th") { "Verifier key" }; HTML.element("td") { HTML.element("code") { key } } }
        }
        HTML.element("h2") { "SIEM delivery" }
        siem(destinations, size: size)
        SignalsSection.render(streams: streams, received: received)
    }

    /// Each SIEM's delivery log against a log of `size` entries, or how to configure one.
    package static func siem(_ destinations: [SIEMStream.Status], size: Int) -> HTML {
        if destinations.isEmpty {
            return .element("p", ["class": "note"]) {
                "No SIEM is configured: set HANDOVER_SIEM_SYSLOG (syslog over TLS) or HANDOVER_SIEM_SPLUNK_URL and HANDOVER_SIEM_SPLUNK_TOKEN."
            }
        }
        return .element("div", ["class": "scroll"]) {
            HTML.element("table", ["id": "siem"]) {
                HTML.element("tr") {
                    HTML.element("th") { "Destination" }; HTML.element("th") { "Entries delivered" }; HTML.element("th") { "Behind" }
                    HTML.element("th") { "Last delivery" }; HTML.element("th") { "Failed attempts" }; HTML.element("th") { "Last error" }
                }
                for destination in destinations {
                    HTML.element("tr") {
                        HTML.element("td") { HTML.element("code") { destination.destination } }
                        HTML.element("td") { String(destination.delivered) }
                        HTML.element("td") { String(max(0, size - destination.delivered)) }
                        HTML.element("td") { destination.deliveredAt.map { DashboardLayout.time($0) } ?? "never" }
                        HTML.element("td") { String(destination.attempts) }
                        HTML.element("td") { destination.lastError ?? "" }
                    }
                }
            }
        }
    }
}
