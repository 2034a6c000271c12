import Fluent
import Foundation
import HandoverCore
import Logging
import Vapor

/// What `handover admin import-devices` did with a CSV file of devices.
public struct DeviceImportReport: Sendable, Codable {
    /// A registered device and its key (shown once).
    public struct Imported: Sendable, Codable {
        public var line: Int
        public var id: UUID
        public var name: String
        public var serialNumber: String?
        public var mdmDeviceID: String?
        /// Absent in a dry run.
        public var key: String?
    }

    /// A row that was not imported, and why.
    public struct Refused: Sendable, Codable, CustomStringConvertible {
        public var line: Int
        public var column: String?
        public var reason: String
        public var description: String { "line \(line): " + (column.map { "\($0): " } ?? "") + reason }
    }

    public var imported: [Imported]
    public var refused: [Refused]
    /// Whether nothing was written (`--dry-run`).
    public var dryRun: Bool

    /// The imported devices and their keys as CSV (RFC 4180): `line,name,serialNumber,deviceID,key`.
    public func keysCSV() -> String {
        CSVTable.render([["line", "name", "serialNumber", "deviceID", "key"]] + imported.map {
            [String($0.line), $0.name, $0.serialNumber ?? "", $0.id.uuidString.lowercased(), $0.key ?? ""]
        })
    }
}

/// The whole file was refused; nothing was imported.
public struct DeviceImportFileError: Error, CustomStringConvertible {
    public var description: String
}

extension HandoverServer {
    /// Registers the devices of a CSV file (header `name,serialNumber,mdmDeviceID`) in the
    /// configured database, each with its device key, in one transaction: every good row is
    /// imported, or none when the database fails. Rows with a problem are refused alone, each
    /// with its line and why; a file that cannot be read as such a table is refused whole
    /// (``DeviceImportFileError``). With `dryRun`, nothing is written.
    public static func importDevices(_ configuration: ServerConfiguration, csv: Data, dryRun: Bool,
                                     logger: Logger = Logger(label: "handover")) async throws -> DeviceImportReport {
        let application = try await Application.make(Environment(name: "production", arguments: ["handover"]))
        application.logger = logger
        do {
            _ = try configureDatabase(application, configuration)
            try await application.autoMigrate()
            let report = try await importDevices(csv: csv, dryRun: dryRun, on: application.db, now: Date())
            try await application.asyncShutdown()
            return report
        } catch {
            try? await application.asyncShutdown()
            throw error
        }
    }

    static func importDevices(csv: Data, dryRun: Bool, on database: Database, now: Date) async throws -> DeviceImportReport {
        let registered = try await Device.query(on: database).filter(\.$serialNumber != nil).all()
        let names = Dictionary(registered.compactMap { device in device.serialNumber.map { ($0, device.name) } }, uniquingKeysWith: { first, _ in first })
        let plan: DeviceImportPlan
        do {
            plan = try DeviceImportPlan(csv: csv, registered: names)
        } catch {
            throw DeviceImportFileError(description: error.description)
        }
        let refused = plan.refused.map { DeviceImportReport.Refused(line: $0.line, column: $0.column, reason: $0.reason) }
        if dryRun {
            let imported = plan.accepted.map {
                DeviceImportReport.Imported(line: $0.line, id: UUID(), name: $0.name, serialNumber: $0.serialNumber, mdmDeviceID: $0.mdmDeviceID, key: nil)
            }
            return DeviceImportReport(imported: imported, refused: refused, dryRun: true)
        }
        let imported = try await database.transaction { db in
            var imported: [DeviceImportReport.Imported] = []
            for row in plan.accepted {
                let device = Device(name: row.name, createdAt: now)
                device.serialNumber = row.serialNumber
                device.mdmDeviceID = row.mdmDeviceID
                try await device.create(on: db)
                let id = try device.requireID()
                let key = try await APIKeyIssuer.create(name: "device \(row.name)", scope: .device, deviceID: id, on: db, now: now)
                imported.append(.init(line: row.line, id: id, name: row.name, serialNumber: row.serialNumber, mdmDeviceID: row.mdmDeviceID, key: key))
            }
            return imported
        }
        return DeviceImportReport(imported: imported, refused: refused, dryRun: false)
    }
}
