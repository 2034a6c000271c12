import Foundation

/// A CSV file of devices, checked row by row before anything is written: which rows will be
/// registered and which are refused, each with its line and why (`handover admin import-devices`).
///
/// The header names the columns, in any order and case: `name` (required), `serialNumber`,
/// `mdmDeviceID` and `site` (`serial_number`, `serial number`, `mdm_device_id` read the same). A header
/// with another column refuses the whole file, as the import cannot know what it meant; a row
/// with more or fewer fields than the header, a bad value, or a serial number already in the
/// file or the registry is refused alone, and the others go ahead.
///
/// A device export from an MDM is read as it comes (``Export``), its other columns listed in
/// ``ignoredColumns`` and left out:
/// - Jamf Pro's mobile device inventory export (Inventory > Search Mobile Devices > Export, CSV):
///   `Display Name` (or `Mobile Device Name`), `Serial Number`, `Management ID` (the id Jamf Pro's
///   MDM commands address), `Site`; recognised by `Display Name`, `Mobile Device Name`,
///   `Management ID` or `UDID`.
/// - Microsoft Intune's device list export (Devices > All devices > Export; the `Devices` report
///   of Graph's `deviceManagement/reports/exportJobs`,
///   https://learn.microsoft.com/mem/intune/fundamentals/reports-export-graph-available-reports):
///   `Device name`, `Serial number`, `Device ID` (the managedDevice id Graph's actions address);
///   recognised by `Device ID` with `Device name`, `Managed by` or `Primary user UPN`.
package struct DeviceImportPlan: Sendable, Equatable {
    /// The largest file read: 5 MB (about 50,000 devices).
    package static let byteLimit = 5 * 1024 * 1024
    /// The most rows one import registers.
    package static let rowLimit = 50_000

    package struct Row: Sendable, Equatable {
        package var line: Int
        package var name: String
        /// Upper-cased.
        package var serialNumber: String?
        package var mdmDeviceID: String?
        /// The site the device belongs to (a ward, a hospital).
        package var site: SiteName? = nil
    }

    package struct Refusal: Sendable, Equatable, CustomStringConvertible {
        package var line: Int
        /// The column at fault, when one is.
        package var column: String?
        package var reason: String

        package var description: String { "line \(line): " + (column.map { "\($0): " } ?? "") + reason }

        package init(line: Int, column: String?, reason: String) {
            self.line = line
            self.column = column
            self.reason = reason
        }
    }

    /// Why the whole file is refused.
    package enum FileProblem: Error, Equatable, CustomStringConvertible {
        case tooLarge(bytes: Int)
        case notUTF8
        case notCSV(String)
        case empty
        case unknownColumn(String, position: Int)
        case missingNameColumn
        case repeatedColumn(String)
        case tooManyRows(Int)

        package var description: String {
            switch self {
            case .tooLarge(let bytes):
                "the file has \(bytes) bytes; at most \(DeviceImportPlan.byteLimit) (5 MB, about 50,000 devices). Split it."
            case .notUTF8: "the file is not UTF-8 text; save it as CSV UTF-8"
            case .notCSV(let problem): "the file is not CSV: \(problem)"
            case .empty: "the file has no header line; the first line names the columns: name,serialNumber,mdmDeviceID,site"
            case .unknownColumn(let name, let position):
                "column \(position) of the header, '\(name.prefix(40))', is not a column here; accepted: name, serialNumber, mdmDeviceID, site"
            case .missingNameColumn: "the header has no 'name' column; every device needs a name"
            case .repeatedColumn(let name): "the header names '\(name)' twice"
            case .tooManyRows(let count): "the file has \(count) rows; at most \(DeviceImportPlan.rowLimit) in one import. Split it."
            }
        }
    }

    /// An MDM's device export, read as it comes.
    package enum Export: String, Sendable, Equatable {
        case jamfPro = "Jamf Pro"
        case intune = "Microsoft Intune"
    }

    package var accepted: [Row]
    package var refused: [Refusal]
    /// The MDM whose export the file is, when its header says so.
    package var export: Export?
    /// A vendor export's columns that the import does not use, as the header names them.
    package var ignoredColumns: [String] = []

    private enum Column: String {
        case name, serialNumber, mdmDeviceID, site
    }

    /// Checks `data`. `registered` maps the serial numbers already in the registry (upper-cased)
    /// to their devices' names.
    package init(csv data: Data, registered: [String: String]) throws(FileProblem) {
        guard data.count <= Self.byteLimit else { throw .tooLarge(bytes: data.count) }
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8 }
        let table: CSVTable
        do {
            table = try CSVTable(parsing: text)
        } catch {
            throw .notCSV(error.description)
        }
        guard let header = table.records.first else { throw .empty }
        let keys = header.fields.map { $0.lowercased().filter { !" _-".contains($0) }.trimmingCharacters(in: .whitespaces) }
        let export: Export? = if !Set(keys).isDisjoint(with: ["displayname", "mobiledevicename", "managementid", "udid"]) {
            .jamfPro
        } else if keys.contains("deviceid"), !Set(keys).isDisjoint(with: ["devicename", "managedby", "primaryuserupn"]) {
            .intune
        } else {
            nil
        }
        // Column positions: nil for a vendor export's column the import does not use.
        var columns: [Column?] = []
        var ignored: [String] = []
        for (index, raw) in header.fields.enumerated() {
            let column: Column? = switch keys[index] {
            case "name", "devicename": .name
            case "displayname", "mobiledevicename" where export == .jamfPro: .name
            case "serialnumber", "serial": .serialNumber
            case "mdmdeviceid", "mdmid": .mdmDeviceID
            case "managementid" where export == .jamfPro: .mdmDeviceID
            case "deviceid" where export == .intune: .mdmDeviceID
            case "site", "ward": .site
            default: nil
            }
            guard let column else {
                guard export != nil else { throw .unknownColumn(raw, position: index + 1) }
                ignored.append(raw)
                columns.append(nil)
                continue
            }
            // A Jamf Pro export may carry both names: the first is used.
            if columns.contains(column), export == .jamfPro, column == .name {
                ignored.append(raw)
                columns.append(nil)
                continue
            }
            guard !columns.contains(column) else { throw .repeatedColumn(column.rawValue) }
            columns.append(column)
        }
        guard columns.contains(.name) else { throw .missingNameColumn }
        self.export = export
        self.ignoredColumns = ignored
        let rows = table.records.dropFirst()
        guard rows.count <= Self.rowLimit else { throw .tooManyRows(rows.count) }

        var accepted: [Row] = []
        var refused: [Refusal] = []
        var seen: [String: Int] = [:]
        for record in rows {
            guard record.fields.count == columns.count else {
                refused.append(Refusal(line: record.line, column: nil,
                                       reason: "\(record.fields.count) fields, but the header names \(columns.count) (\((export == nil ? columns.compactMap { $0?.rawValue } : header.fields).joined(separator: ", "))); a field with a comma goes in double quotes"))
                continue
            }
            var values: [Column: String] = [:]
            for (column, value) in zip(columns, record.fields) {
                if let column { values[column] = value.trimmingCharacters(in: .whitespaces) }
            }
            if let problem = DeviceIdentifiers.problem(name: values[.name] ?? "") {
                refused.append(Refusal(line: record.line, column: "name", reason: problem))
                continue
            }
            var serial: String?
            if let text = values[.serialNumber], !text.isEmpty {
                if let problem = DeviceIdentifiers.problem(serialNumber: text) {
                    refused.append(Refusal(line: record.line, column: "serialNumber", reason: problem))
                    continue
                }
                let normalized = DeviceIdentifiers.normalized(serialNumber: text)
                if let first = seen[normalized] {
                    refused.append(Refusal(line: record.line, column: "serialNumber", reason: "\(normalized) is already on line \(first) of this file"))
                    continue
                }
                if let device = registered[normalized] {
                    refused.append(Refusal(line: record.line, column: "serialNumber", reason: "\(normalized) is already registered, to '\(device)'"))
                    continue
                }
                seen[normalized] = record.line
                serial = normalized
            }
            var mdm: String?
            if let text = values[.mdmDeviceID], !text.isEmpty {
                if let problem = DeviceIdentifiers.problem(mdmDeviceID: text) {
                    refused.append(Refusal(line: record.line, column: "mdmDeviceID", reason: problem))
                    continue
                }
                mdm = text
            }
            var site: SiteName?
            if let text = values[.site], !text.isEmpty {
                do throws(SiteNameError) {
                    site = try SiteName(text)
                } catch {
                    refused.append(Refusal(line: record.line, column: "site", reason: error.description))
                    continue
                }
            }
            accepted.append(Row(line: record.line, name: values[.name] ?? "", serialNumber: serial, mdmDeviceID: mdm, site: site))
        }
        self.accepted = accepted
        self.refused = refused
    }
}
