import Foundation
import HandoverProtocol
import HandoverSchema

/// What the dashboard's overview shows, read in one go for the sites a session sees: the devices
/// by status, the queue of devices that need attention, the devices themselves while the fleet is
/// small, the last runs with their apps' items, and the lending periods overrun. Its reads cost
/// the same with 10,000 devices as with 10 (counts by the status index, lists bounded).
package struct FleetOverview: Sendable {
    /// Up to this many devices, the overview lists them all; above, it shows counts by status.
    package static let deviceLimit = 50

    /// Devices of the sites by status (retired ones included).
    package var counts: [DeviceStatus: Int]
    /// Devices that have not retired.
    package var total: Int
    /// Every device that has not retired, by name, when there are at most ``deviceLimit``; else empty.
    package var listed: [Device]
    /// Devices that need attention, longest waiting first, at most ``deviceLimit``.
    package var queue: [Device]
    /// How many devices need attention in all.
    package var queueTotal: Int
    /// The last runs on the sites' devices, newest first.
    package var recentRuns: [LogoutRun]
    /// The lending periods overrun now.
    package var overruns: (rows: [LendingOverruns.Row], total: Int)
    /// The items of the recent runs and of the listed devices' last runs, by run, in order.
    package var itemsByRun: [UUID: [LogoutItem]]
    /// Their backends' logout states.
    package var backends: BackChannelLogoutReport.States
    /// The recent runs and the listed devices' last runs, by id.
    package var runByID: [UUID: LogoutRun]
    /// The names of the recent runs' devices, by id.
    package var deviceNames: [UUID: String]

    /// Reads the overview of `sites` (through ``FleetOverviewStore``).
    package static func load(sites: SiteFilter, custody: CustodySettings, now: Date, on database: DatabaseHandle) async throws -> FleetOverview {
        let counts = try await deviceCounts(on: database, sites: sites)
        let total = counts.filter { $0.key != .retired }.values.reduce(0, +)  // retired devices left the fleet
        let listed = total <= deviceLimit ? try await FleetOverviewStore.listedDevices(visibleTo: sites, on: database) : []
        let queue = try await FleetOverviewStore.attentionQueue(visibleTo: sites, limit: deviceLimit, on: database)
        let queueTotal = DeviceStatus.allCases.filter(\.needsAttention).reduce(0) { $0 + (counts[$1] ?? 0) }
        let runs = try await recentRuns(10, sites: sites, on: database)
        let overruns = try await LendingOverruns(settings: custody).list(visibleTo: sites, on: database, now: now)
        let runIDs = runs.compactMap(\.id) + listed.compactMap(\.lastRunID)
        let items = runIDs.isEmpty ? [] : try await FleetOverviewStore.items(ofRuns: runIDs, on: database)
        let backends = try await BackChannelLogoutReport.states(runs: runIDs, on: database)
        let lastRuns = listed.compactMap(\.lastRunID).isEmpty ? [] :
            try await FleetOverviewStore.runs(listed.compactMap(\.lastRunID), on: database)
        // A device's last run is often among the recent ones too: keep one of each.
        let runByID = Dictionary((runs + lastRuns).compactMap { run in run.id.map { ($0, run) } }, uniquingKeysWith: { first, _ in first })
        let runDevices = runs.isEmpty ? [] : try await FleetOverviewStore.devices(Set(runs.map(\.deviceID)), on: database)
        let deviceNames = Dictionary(runDevices.compactMap { device in device.id.map { ($0, device.name) } }, uniquingKeysWith: { first, _ in first })
        return FleetOverview(counts: counts, total: total, listed: listed, queue: queue, queueTotal: queueTotal, recentRuns: runs,
                             overruns: overruns, itemsByRun: Dictionary(grouping: items, by: \.runID), backends: backends,
                             runByID: runByID, deviceNames: deviceNames)
    }

    /// The last `count` runs on devices of `sites`, newest first (``FleetOverviewStore``).
    package static func recentRuns(_ count: Int, sites: SiteFilter, on database: DatabaseHandle) async throws -> [LogoutRun] {
        try await FleetOverviewStore.recentRuns(count, sites: sites, on: database)
    }

    /// How many devices of `sites` are in each status: one pass over the status index (``FleetOverviewStore``).
    package static func deviceCounts(on database: DatabaseHandle, sites: SiteFilter = .everySite) async throws -> [DeviceStatus: Int] {
        try await FleetOverviewStore.deviceCounts(on: database, sites: sites)
    }
}
