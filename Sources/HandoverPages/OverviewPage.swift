import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// The dashboard's overview (`/dashboard`): the queue of devices that need attention (at most 50
/// shown), the devices held past their lending period, the devices by status (with their last
/// run while the fleet is small), and the last 10 runs (``HandoverCore/FleetOverview``). Each
/// block is an element with its own `id`, so a live update replaces one block at a time.
package enum OverviewPage {
    /// The overview's blocks, in order, each with the `id` of its element.
    package static func sections(_ overview: FleetOverview, custody: CustodySettings) -> [(id: String, html: HTML)] {
        [
            ("attention", attention(queue: overview.queue, queueTotal: overview.queueTotal, counts: overview.counts)),
            (LendingSection.id, LendingSection.html(overview.overruns, settings: custody)),
            ("fleet", fleet(counts: overview.counts, total: overview.total, listed: overview.listed, runByID: overview.runByID,
                            itemsByRun: overview.itemsByRun, backends: overview.backends)),
            ("recent-runs", recentRuns(overview.recentRuns, deviceNames: overview.deviceNames, itemsByRun: overview.itemsByRun,
                                       backends: overview.backends)),
        ]
    }

    /// The devices out of service or overdue, longest waiting first; links to all of them when
    /// more than the listed are.
    package static func attention(queue: [Device], queueTotal: Int, counts: [DeviceStatus: Int]) -> HTML {
        .element("section", ["id": "attention"]) {
            HTML.element("h2") { "Needs attention (\(queueTotal))" }
            if queue.isEmpty {
                HTML.element("p", ["class": "note"]) { "No device is out of service or overdue." }
            } else {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table") {
                        HTML.element("tr") { HTML.element("th") { "Device" }; HTML.element("th") { "Status" }; HTML.element("th") { "Since" }; HTML.element("th") { "Why" } }
                        for device in queue.sorted(by: { ($0.statusChangedAt ?? $0.createdAt) < ($1.statusChangedAt ?? $1.createdAt) }) {
                            HTML.element("tr") {
                                HTML.element("td") { DashboardLinks.device(device) }
                                HTML.element("td") { DashboardLayout.badge(device.status) }
                                HTML.element("td") { DashboardLayout.time(device.statusChangedAt) }
                                HTML.element("td") { device.statusReason ?? "—" }
                            }
                        }
                    }
                }
                if queueTotal > queue.count {
                    HTML.element("p") {
                        HTML.element("a", ["href": "/dashboard/devices?filter=out-of-service"]) { "All \(counts[.outOfService] ?? 0) out of service" }
                        " · "
                        HTML.element("a", ["href": "/dashboard/devices?filter=overdue"]) { "all \(counts[.overdue] ?? 0) overdue" }
                    }
                }
            }
        }
    }

    /// The devices by status, each count linking to the list; and, when `listed` (a small
    /// fleet), each device with its last run and that run's apps.
    package static func fleet(counts: [DeviceStatus: Int], total: Int, listed: [Device], runByID: [UUID: LogoutRun],
                              itemsByRun: [UUID: [LogoutItem]], backends: BackChannelLogoutReport.States) -> HTML {
        .element("section", ["id": "fleet"]) {
            HTML.element("h2") { "Devices (\(total))" }
            if total == 0 {
                HTML.element("p", ["class": "note"]) { "No devices yet. Register one with POST /api/v1/devices, or run `handover demo`." }
            } else {
                HTML.element("p", ["class": "counts"]) {
                    for status in DeviceStatus.allCases {
                        HTML.element("a", ["href": "/dashboard/devices?status=\(status.rawValue)"]) {
                            DashboardLayout.badge(status); " \(counts[status] ?? 0)"
                        }
                        " "
                    }
                    HTML.element("a", ["href": "/dashboard/devices"]) { "Search the devices →" }
                }
            }
            if !listed.isEmpty {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table") {
                        HTML.element("tr") { HTML.element("th") { "Device" }; HTML.element("th") { "Status" }; HTML.element("th") { "Last run" }; HTML.element("th") { "Apps" } }
                        for device in listed {
                            let last = device.lastRunID.flatMap { runByID[$0] }
                            HTML.element("tr") {
                                HTML.element("td") { DashboardLinks.device(device) }
                                HTML.element("td") { DashboardLayout.badge(device.status) }
                                HTML.element("td") {
                                    if let last { DashboardLayout.badge(last.status); " "; DashboardLayout.time(last.createdAt) } else { "never" }
                                }
                                HTML.element("td") { DashboardLinks.itemBadges(last.flatMap { $0.id }.flatMap { itemsByRun[$0] } ?? [], backends: backends) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The last runs, newest first, each linking to its timeline, with its device and apps.
    package static func recentRuns(_ runs: [LogoutRun], deviceNames: [UUID: String], itemsByRun: [UUID: [LogoutItem]],
                                   backends: BackChannelLogoutReport.States) -> HTML {
        .element("section", ["id": "recent-runs"]) {
            HTML.element("h2") { "Recent logout runs" }
            if runs.isEmpty {
                HTML.element("p", ["class": "note"]) { "No runs yet. They appear here live as devices start them." }
            } else {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "runs"]) {
                        HTML.element("tr") { HTML.element("th") { "Started" }; HTML.element("th") { "Device" }; HTML.element("th") { "Status" }; HTML.element("th") { "Apps" } }
                        for run in runs {
                            HTML.element("tr", ["data-run": run.id?.uuidString.lowercased()]) {
                                HTML.element("td") {
                                    if let id = run.id {
                                        HTML.element("a", ["href": DashboardLinks.run(id)]) { DashboardLayout.time(run.createdAt) }
                                    } else { DashboardLayout.time(run.createdAt) }
                                }
                                HTML.element("td") { deviceNames[run.deviceID] ?? "deleted device" }
                                HTML.element("td") { DashboardLayout.badge(run.status) }
                                HTML.element("td") { DashboardLinks.itemBadges(run.id.flatMap { itemsByRun[$0] } ?? [], backends: backends) }
                            }
                        }
                    }
                }
            }
        }
    }
}
