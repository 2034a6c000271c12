import Foundation
import HandoverConfiguration
import HandoverCore
import Logging

extension HandoverServer {
    /// Registers the devices of a CSV file (header `name,serialNumber,mdmDeviceID`) in the
    /// configured database, each with its device key. Every row is checked first; rows with a
    /// problem are refused alone, each with its line and why; a file that cannot be read as such
    /// a table is refused whole (``DeviceImportFileError``). The good rows go in by
    /// ``DeviceImport/Writes``: batches, each its own transaction (a failure midway throws
    /// ``DeviceImportInterrupted`` with the batches committed before it), or all in one.
    /// `progress` hears the rows imported and the total after each batch. With `dryRun`,
    /// nothing is written.
    public static func importDevices(_ configuration: ServerConfiguration, csv: Data, dryRun: Bool, writes: DeviceImport.Writes = .init(),
                                     logger: Logger = Logger(label: "handover"),
                                     progress: @escaping @Sendable (Int, Int) async throws -> Void = { _, _ in }) async throws -> DeviceImportReport {
        try await withOfflineDatabase(configuration, logger: logger) { databases in
            try await DeviceImport.run(csv: csv, dryRun: dryRun, in: databases, now: Date(), batchSize: writes.batchSize,
                                   allOrNothing: writes.allOrNothing, progress: progress)
        }
    }
}
