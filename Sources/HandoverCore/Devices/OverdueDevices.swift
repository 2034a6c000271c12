import Foundation
import HandoverProtocol
import HandoverSchema

/// Finds devices held past their lending period (say the longest shift plus an hour: the fleet's,
/// or their site's, ``CustodySettings``), marks them overdue, and starts a logout run for each where there are
/// apps to log out: the run's deadlines pass on a device nobody holds, so it fails and the device
/// escalates like any other failed run (out of service, webhooks, and the MDM's remedy).
/// The statements are ``DeviceStore``'s (the devices) and ``DeviceAlertStore``'s (the alerts).
package struct OverdueDevices: Sendable {
    package let runs: LogoutRunService
    /// The lending periods: the fleet's and the sites'.
    package let settings: CustodySettings

    package init(runs: LogoutRunService, settings: CustodySettings) {
        self.runs = runs
        self.settings = settings
    }

    /// One that became overdue in this pass, with the run started for it (nil when the registry
    /// has no target apps).
    package struct Marked: Sendable, Equatable {
        package var device: UUID
        package var run: UUID?
    }

    /// Marks every device in service that is overdue: held (checked out) for longer than its
    /// lending period, counted from the check-out; or, held by nobody, whose last completed
    /// hand-over (never handed over: its registration) is older than its lending period.
    ///
    /// The history says since when and under which period, not who held it: the custody record
    /// names the person, and forgets them after the retention period.
    package func markDue(limit batch: Int = 100) async throws -> [Marked] {
        let now = runs.clock.now()
        guard settings.checksLending else { return [] }
        let store = DeviceStore(runs.database)
        let rows = try await store.pastLending(settings: settings, now: now, limit: batch)
        var held: [UUID: String] = [:]
        for row in rows {
            guard let since = row.checkedOutAt else { continue }
            let how = row.checkedOutBy.flatMap(Custody.CheckOut.init(rawValue:))
            held[row.device] = "held since \(Self.format(since)) without a hand-over"
                + (how.map { " (checked out by \($0.words))" } ?? "")
        }
        let ids = rows.map(\.device)
        let due = ids.isEmpty ? [] : try await store.devices(ids)
        var marked: [Marked] = []
        for device in due {
            guard let id = device.id, let period = settings.lendingPeriod(site: device.site) else { continue }
            let since = held[id] ?? device.lastCompletedAt.map { "no hand-over completed since \(Self.format($0))" }
                ?? "no hand-over completed since it was registered"
            let reason = "\(since) (lending period \(Self.duration(period))\(device.site.map { " at \($0)" } ?? ""))"
            let transition = try await runs.database.inTransaction { db in
                let transition = try await DeviceLifeCycle.apply(.becameOverdue, to: id, reason: reason, mdm: runs.mdm, on: db, now: now)
                // Its site's contacts hear of it now, whatever its run comes to (``AlertRules``).
                if case .move = transition {
                    try await DeviceAlertStore.raise([AlertRaise(device: id, cause: .overdue, deviceName: device.name, site: device.site,
                                                                 status: .overdue, detail: reason)], publicURL: runs.publicURL, on: db, now: now)
                }
                return transition
            }
            guard case .move = transition else { continue }  // another instance got there first, or a run started
            do {
                let run = try await runs.createRun(deviceID: id, appIDs: nil, actor: DeviceLifeCycle.serverActor)
                marked.append(Marked(device: id, run: run.id))
            } catch let error as DomainError where error.code == "no_apps" {
                marked.append(Marked(device: id, run: nil))
            }
        }
        return marked
    }

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
    }

    /// `13 h`, `90 min`, `45 s`.
    package static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds)
        if whole % 3600 == 0 { return "\(whole / 3600) h" }
        if whole % 60 == 0 { return "\(whole / 60) min" }
        return "\(whole) s"
    }
}
