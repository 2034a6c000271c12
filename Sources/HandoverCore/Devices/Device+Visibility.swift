import Foundation
import HandoverSchema

extension Device {
    /// Puts the device at `site` (nil: at none): its name as written, and its key.
    package func place(at site: SiteName?) {
        place(site: site?.text, key: site?.key)
    }

    /// The device with `id`, if `sites` shows it: a device of another site is as absent as one
    /// that does not exist, so a page or form does not reveal that it exists.
    package static func find(_ id: UUID, visibleTo sites: SiteFilter, on database: DatabaseHandle) async throws -> Device? {
        guard let device = try await Device.stored(id, on: database), sites.shows(device.site) else { return nil }
        return device
    }
}
