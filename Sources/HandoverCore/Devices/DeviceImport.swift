import Foundation

/// What `handover admin import-devices` did with a CSV file of devices.
public struct DeviceImportReport: Sendable, Codable {
    /// A registered device and its key (shown once).
    public struct Imported: Sendable, Codable {
        public var line: Int
        public var id: UUID
        public var name: String
        public var serialNumber: String?
        public var mdmDeviceID: String?
        /// The device's site, when the row gives one.
        public var site: String? = nil
        /// Absent in a dry run.
        public var key: String?

        public init(line: Int, id: UUID, name: String, serialNumber: String?, mdmDeviceID: String?, site: String? = nil, key: String?) {
            self.line = line
            self.id = id
            self.name = name
            self.serialNumber = serialNumber
            self.mdmDeviceID = mdmDeviceID
            self.site = site
            self.key = key
        }
    }

    /// A row that was not imported, and why.
    public struct Refused: Sendable, Codable, CustomStringConvertible {
        public var line: Int
        public var column: String?
        public var reason: String
        public var description: String { "line \(line): " + (column.map { "\($0): " } ?? "") + reason }

        public init(line: Int, column: String?, reason: String) {
            self.line = line
            self.column = column
            self.reason = reason
        }
    }

    public var imported: [Imported]
    public var refused: [Refused]
    /// Whether nothing was written (`--dry-run`).
    public var dryRun: Bool
    /// The MDM whose device export the file is (`Jamf Pro`, `Microsoft Intune`), when its header says so.
    public var export: String?
    /// That export's columns the import does not use, left out.
    public var ignoredColumns: [String] = []

    public init(imported: [Imported], refused: [Refused], dryRun: Bool, export: String? = nil, ignoredColumns: [String] = []) {
        self.imported = imported
        self.refused = refused
        self.dryRun = dryRun
        self.export = export
        self.ignoredColumns = ignoredColumns
    }

    /// The imported devices and their keys as CSV (RFC 4180): `line,name,serialNumber,deviceID,key`,
    /// each field that a spreadsheet would run as a formula neutralised (``CSVWriter``).
    public func keysCSV() -> String {
        CSVWriter.render([["line", "name", "serialNumber", "deviceID", "key"]] + imported.map {
            [String($0.line), $0.name, $0.serialNumber ?? "", $0.id.uuidString.lowercased(), $0.key ?? ""]
        })
    }
}

/// The import stopped midway: `report` holds the rows committed before it stopped (none with
/// `allOrNothing`), with their keys, which are shown nowhere else.
public struct DeviceImportInterrupted: Error, CustomStringConvertible {
    public var report: DeviceImportReport
    public var cause: any Error
    public var description: String { "\(cause)" }
}

/// The whole file was refused; nothing was imported.
public struct DeviceImportFileError: Error, CustomStringConvertible {
    public var description: String
}

/// The fleet import (`handover admin import-devices`, the dashboard's import page): a CSV file of
/// devices checked row by row (``DeviceImportPlan``), then registered with their keys
/// (``DeviceImportWriter``) in batches or in one transaction.
public enum DeviceImport {
    /// How an import writes: in batches (the default) or in one transaction.
    public struct Writes: Sendable {
        /// Rows per transaction in batches: small enough that a batch holds SQLite's one write
        /// lock for a fraction of a second, so the running server's writes go in between.
        public static let defaultBatchSize = 250
        public static let batchSizes = 1...10_000

        public var batchSize: Int
        /// One transaction for every row: all are imported or none, and the database's write
        /// lock is held for the whole import.
        public var allOrNothing: Bool

        public init(batchSize: Int = defaultBatchSize, allOrNothing: Bool = false) {
            self.batchSize = batchSize
            self.allOrNothing = allOrNothing
        }
    }

    /// A further check of the rows a file accepts: the refusal of a row, or nil to let it through.
    package struct RowCheck {
        package init(refusal: @escaping (DeviceImportPlan.Row) -> DeviceImportPlan.Refusal?) { self.refusal = refusal }

        package let refusal: (DeviceImportPlan.Row) -> DeviceImportPlan.Refusal?
    }

    /// The pause between two batches: the server's writers waiting on SQLite's lock take it then.
    package static let pauseBetweenBatches: Duration = .milliseconds(20)

    /// - Parameter refusing: a further check of each row the file accepts (the dashboard's: a row
    ///   at a site where the person may not add devices).
    package static func run(csv: Data, dryRun: Bool, in databases: ServerDatabases, now: Date, batchSize: Int = Writes.defaultBatchSize,
                              allOrNothing: Bool = false, refusing: RowCheck? = nil,
                              progress: @escaping @Sendable (Int, Int) async throws -> Void = { _, _ in }) async throws -> DeviceImportReport {
        let database = databases.primary
        let names = try await DeviceImportWriter.registeredSerialNumbers(on: database)
        var plan: DeviceImportPlan
        do {
            plan = try DeviceImportPlan(csv: csv, registered: names)
        } catch {
            throw DeviceImportFileError(description: error.description)
        }
        let more = Dictionary(plan.accepted.compactMap { row in refusing?.refusal(row).map { (row.line, $0) } }) { first, _ in first }
        if !more.isEmpty {
            plan.accepted.removeAll { more[$0.line] != nil }
            plan.refused = (plan.refused + more.values).sorted { $0.line < $1.line }
        }
        let refused = plan.refused.map { DeviceImportReport.Refused(line: $0.line, column: $0.column, reason: $0.reason) }
        func report(_ imported: [DeviceImportReport.Imported], refused: [DeviceImportReport.Refused], dryRun: Bool) -> DeviceImportReport {
            DeviceImportReport(imported: imported, refused: refused, dryRun: dryRun, export: plan.export?.rawValue, ignoredColumns: plan.ignoredColumns)
        }
        if dryRun {
            let imported = plan.accepted.map {
                DeviceImportReport.Imported(line: $0.line, id: UUID(), name: $0.name, serialNumber: $0.serialNumber, mdmDeviceID: $0.mdmDeviceID,
                                            site: $0.site?.text, key: nil)
            }
            return report(imported, refused: refused, dryRun: true)
        }
        let total = plan.accepted.count
        let size = max(1, batchSize)
        let batches = stride(from: 0, to: total, by: size).map { Array(plan.accepted[$0..<min($0 + size, total)]) }
        if allOrNothing {
            do {
                let imported = try await DeviceImportWriter.writeAll(batches, now: now, on: database, progress: progress).map(Self.imported)
                return report(imported, refused: refused, dryRun: false)
            } catch {
                throw DeviceImportInterrupted(report: report([], refused: refused, dryRun: false), cause: error)
            }
        }
        var imported: [DeviceImportReport.Imported] = []
        for (index, batch) in batches.enumerated() {
            do {
                if index > 0 { try await Task.sleep(for: pauseBetweenBatches) }
                imported += try await DeviceImportWriter.write(batch, now: now, on: database).map(Self.imported)
                try await progress(imported.count, total)
            } catch {
                throw DeviceImportInterrupted(report: report(imported, refused: refused, dryRun: false), cause: error)
            }
        }
        return report(imported, refused: refused, dryRun: false)
    }

    /// A registered row as the report shows it.
    private static func imported(_ registered: DeviceImportWriter.Registered) -> DeviceImportReport.Imported {
        let row = registered.row
        return DeviceImportReport.Imported(line: row.line, id: registered.id, name: row.name, serialNumber: row.serialNumber,
                                           mdmDeviceID: row.mdmDeviceID, site: row.site?.text, key: registered.key)
    }
}
