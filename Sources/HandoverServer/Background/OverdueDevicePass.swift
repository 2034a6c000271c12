import Fluent
import Foundation
import HandoverCore

/// The overdue check as the server runs it: ``HandoverCore/OverdueDevices`` marks the devices and
/// starts their runs, and each marked device's sessions end as at any hand-over (their backends
/// are told by Back-Channel Logout).
struct OverdueDevicePass: Sendable {
    let devices: OverdueDevices
    let sessions: SessionAuthority?
    let database: Database

    @discardableResult
    func markDue() async throws -> [OverdueDevices.Marked] {
        let marked = try await devices.markDue()
        for device in marked {
            try await sessions?.signOutDevice(device.device, runID: device.run, on: database)
            if let run = device.run { try await BackendOnlyItems.settle(run: run, runs: devices.runs) }
        }
        return marked
    }
}
