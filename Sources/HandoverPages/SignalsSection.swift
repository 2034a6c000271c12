import Foundation
import HandoverCore

/// The audit page's Shared Signals section: each receiver's stream (how many events it took, still
/// owes and refused, and the last error), and the latest SETs the identity provider sent, with
/// what each did (docs/shared-signals.md).
package enum SignalsSection {
    @HTMLBuilder
    package static func render(streams: [SharedSignalsReport.Stream], received: [SharedSignalsReport.Received]) -> HTML {
        HTML.element("h2") { "Shared Signals" }
        if streams.isEmpty {
            HTML.element("p", ["class": "note"]) {
                "No receiver has a stream: register one with POST /oauth/register and let it create one at /ssf/stream (docs/shared-signals.md)."
            }
        } else {
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "signal-streams"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Receiver" }; HTML.element("th") { "Delivery" }; HTML.element("th") { "Status" }
                        HTML.element("th") { "Delivered" }; HTML.element("th") { "Owed" }; HTML.element("th") { "Refused or given up" }
                        HTML.element("th") { "Last error" }
                    }
                    for stream in streams {
                        HTML.element("tr") {
                            HTML.element("td") { stream.receiver }
                            HTML.element("td") { stream.method == .push ? "push (RFC 8935)" : "poll (RFC 8936)" }
                            HTML.element("td") { stream.status.rawValue }
                            HTML.element("td") { String(stream.delivered) }
                            HTML.element("td") { String(stream.owed) }
                            HTML.element("td") { String(stream.failed) }
                            HTML.element("td") { stream.lastError ?? "" }
                        }
                    }
                }
            }
        }
        HTML.element("h3") { "From the identity provider" }
        if received.isEmpty {
            HTML.element("p", ["class": "note"]) { "No security event received yet." }
        } else {
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "signals-received"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Received" }; HTML.element("th") { "Event" }; HTML.element("th") { "What it did" }; HTML.element("th") { "jti" }
                    }
                    for set in received {
                        HTML.element("tr") {
                            HTML.element("td") { DashboardLayout.time(set.at) }
                            HTML.element("td") { String(set.event.split(separator: "/").last ?? "") }
                            HTML.element("td") { set.outcome }
                            HTML.element("td") { HTML.element("code") { set.jti } }
                        }
                    }
                }
            }
        }
    }
}
