import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// A logout run's page on the dashboard (`/dashboard/runs/{id}`): its apps as they stand, the
/// link to its signed receipt once it ended, then its timeline (``HandoverCore/RunTimeline``):
/// every link issued, each deadline missed and reissue, each answer, timeout, backend told and
/// webhook sent, with the time since the start.
package enum RunTimelinePage {
    /// The page's body for `run` on `device` (nil: the device was deleted).
    @HTMLBuilder
    package static func body(_ run: LogoutRunView, device: Device?, timeline: RunTimeline) -> HTML {
        HTML.element("section") {
            HTML.element("p") {
                DashboardLayout.badge(run.status); " on "
                if let device { DashboardLinks.device(device) } else { "a deleted device" }
                ", started "; DashboardLayout.time(run.createdAt)
                if let finished = run.finishedAt { ", finished after "; RunTimeline.milliseconds(finished.timeIntervalSince(run.createdAt)) }
            }
            if !run.isRunning {
                HTML.element("p", ["id": "receipt"]) {
                    HTML.element("a", ["href": DashboardLinks.run(run.id) + "/receipt"]) { "Download the signed receipt" }
                    " (a JWS; check it with "; HTML.element("code") { "handover audit verify-receipt" }; ")"
                }
            }
            HTML.element("p") {
                for item in run.items {
                    HTML.element("span", ["class": "item"]) {
                        item.app; " "; DashboardLayout.badge(item.status)
                        if let backend = item.backend { " backend "; DashboardLayout.badge(backend) }
                        " "
                    }
                }
            }
        }
        HTML.element("section", ["id": "timeline"]) {
            HTML.element("h2") { "Timeline" }
            HTML.element("p", ["class": "note"]) { "Times are UTC; “after start” counts from the run's start." }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "timeline-entries"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Time" }; HTML.element("th") { "After start" }
                        HTML.element("th") { "App" }; HTML.element("th") { "What happened" }
                    }
                    for entry in timeline.entries {
                        HTML.element("tr", ["class": "event \(entry.kind.rawValue)\(entry.isProblem ? " problem" : "")"]) {
                            HTML.element("td") { RunTimeline.clock(entry.at) }
                            HTML.element("td") { "+" + RunTimeline.milliseconds(max(0, entry.at.timeIntervalSince(run.createdAt))) }
                            HTML.element("td") { entry.app ?? "—" }
                            HTML.element("td") {
                                if entry.isProblem { HTML.element("strong") { entry.text } } else { entry.text }
                            }
                        }
                    }
                }
            }
        }
    }
}
