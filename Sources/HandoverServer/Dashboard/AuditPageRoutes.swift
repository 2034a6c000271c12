import Foundation
import HandoverCore
import TransparencyLog
import HandoverPages
import Vapor

/// `/dashboard/audit`: the audit log's size, its latest signed checkpoint and verifier key, each
/// SIEM's delivery log (how far it has the log, its attempts and last error), and Shared Signals:
/// each stream's deliveries and the identity provider's latest SETs. Admins only.
struct AuditPageRoutes: RouteCollection {
    let auth: DashboardAuth
    let audit: AuditService

    func boot(routes: RoutesBuilder) throws {
        routes.get("dashboard", "audit", use: page)
    }

    @Sendable func page(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            let sql = try auth.databases.readSQL()
            let log = AuditLog(sql: sql)
            let size = try await log.size()
            let checkpoint = try await log.latestCheckpoint()
            let destinations = try await SIEMStream.statuses(on: sql)
            let key = try await audit.verifierKey().description
            let streams = try await SharedSignalsReport.streams(on: sql)
            let received = try await SharedSignalsReport.received(on: sql)
            return DashboardLayout.page("Audit log", signedIn: viewer) {
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
                if destinations.isEmpty {
                    HTML.element("p", ["class": "note"]) {
                        "No SIEM is configured: set HANDOVER_SIEM_SYSLOG (syslog over TLS) or HANDOVER_SIEM_SPLUNK_URL and HANDOVER_SIEM_SPLUNK_TOKEN."
                    }
                } else {
                    HTML.element("div", ["class": "scroll"]) {
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
                SignalsSection.render(streams: streams, received: received)
            }
        }
    }
}
