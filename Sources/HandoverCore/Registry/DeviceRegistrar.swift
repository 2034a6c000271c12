import Foundation
import HandoverSchema

/// Registers devices and changes them: the one place their fields are checked, for the API
/// (`POST` and `PATCH /api/v1/devices…`) and the dashboard's forms alike, with the same sentences.
package struct DeviceRegistrar: Sendable {
    package let now: @Sendable () -> Date

    package init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// What a registration or a change gives. For a change, nil keeps a field and an empty text
    /// removes it (but the name, which every device has).
    package struct Fields: Sendable {
        package var name: String?
        package var serialNumber: String?
        package var mdmDeviceID: String?
        package var site: String?

        package init(name: String? = nil, serialNumber: String? = nil, mdmDeviceID: String? = nil, site: String? = nil) {
            self.name = name
            self.serialNumber = serialNumber
            self.mdmDeviceID = mdmDeviceID
            self.site = site
        }
    }

    /// A new device and its key (shown once), in one transaction.
    package func register(_ fields: Fields, on database: DatabaseHandle) async throws -> (device: Device, key: String) {
        let device = Device(name: "", createdAt: now())
        try await apply(fields, to: device, registering: true, on: database)
        let now = now()
        let key = try await RegistryStore(database).register(device, now: now)
        return (device, key)
    }

    /// Changes a device's fields; returns it as it is now.
    package func update(_ device: Device, with fields: Fields, on database: DatabaseHandle) async throws -> Device {
        try await apply(fields, to: device, registering: false, on: database)
        try await RegistryStore(database).update(device)
        return device
    }

    private func apply(_ fields: Fields, to device: Device, registering: Bool, on database: DatabaseHandle) async throws {
        if let text = fields.name ?? (registering ? "" : nil) {
            let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...100).contains(name.count) else { throw DomainError.invalid("name", "give 1 to 100 characters") }
            guard !name.containsControlCharacter else { throw DomainError.invalid("name", String.controlCharacterAdvice) }
            device.name = name
        }
        if let serial = fields.serialNumber {
            if serial.isEmpty, !registering {
                device.serialNumber = nil
            } else {
                if let problem = DeviceIdentifiers.problem(serialNumber: serial) { throw DomainError.invalid("serialNumber", problem) }
                let normalized = DeviceIdentifiers.normalized(serialNumber: serial)
                if let other = try await RegistryStore(database).device(serialNumber: normalized), other.id != device.id {
                    throw DomainError(.conflict, code: "duplicate_serial", reason: "serialNumber: \(normalized) is already registered, to '\(other.name)'.",
                                      field: "serialNumber")
                }
                device.serialNumber = normalized
            }
        }
        if let mdm = fields.mdmDeviceID {
            if mdm.isEmpty, !registering {
                device.mdmDeviceID = nil
            } else {
                if let problem = DeviceIdentifiers.problem(mdmDeviceID: mdm) { throw DomainError.invalid("mdmDeviceID", problem) }
                device.mdmDeviceID = mdm
            }
        }
        if let site = fields.site {
            if site.isEmpty, !registering {
                device.place(at: nil)
            } else {
                do throws(SiteNameError) {
                    device.place(at: try SiteName(site))
                } catch {
                    throw DomainError.invalid("site", error.description)
                }
            }
        }
    }
}
