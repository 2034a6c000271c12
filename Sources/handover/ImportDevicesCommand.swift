import ArgumentParser
import Foundation
import HandoverServer
import Logging

/// `handover admin import-devices`: register a fleet from a CSV file.
struct ImportDevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-devices",
        abstract: "Register devices from a CSV file (name, serial number, MDM id, site), each with its device key.",
        discussion: """
            The first line names the columns, in any order: name (required), serialNumber, \
            mdmDeviceID (optional; the MDM finds a device by its serial number) and site (optional; \
            the ward or hospital whose people see the device). For example:

              name,serialNumber,mdmDeviceID,site
              ward-7-phone-1,C02XK1ABJG5H,42,Ward-7
              "ICU, phone 2",C02XK1ABJG5J,43,ICU

            Every row is checked first. A row with a bad value (control characters, a malformed \
            serial number), a serial number already in the file or the registry, or more or fewer \
            fields than the header is refused, with its line and why. A header with an unknown \
            column, a file over 5 MB or one that is not UTF-8 CSV is refused whole. A device export \
            from Jamf Pro (Display Name, Serial Number, Management ID, Site) or Microsoft Intune \
            (Device name, Serial number, Device ID) is read as it comes: the columns it uses are \
            named, the others left out.

            By default the good rows go in batches of --batch-size (250), each its own \
            transaction, with a short pause between them, so a running server's own writes (on \
            SQLite, one writer at a time) go in between; a long import prints its progress. If \
            it stops midway, the batches before stay imported and their keys are written; run \
            the same file again: the rows already imported are refused by their serial numbers \
            ("already registered") and the others go in. Rows without a serial number would be \
            registered again: give every row one, or use --all-or-nothing.

            With --all-or-nothing every good row goes in one transaction: all are imported or \
            none. It holds the database's write lock for the whole import (about a minute for \
            50,000 rows), and a running server's writes wait or fail meanwhile.

            The devices' keys (each shown only now) are written to --keys-out, created before the \
            import starts and readable only by you: give each launcher its key. Use the same \
            --data-dir or --database as 'handover serve'; the server may be running. The folder \
            must hold its database already ('handover serve' makes it on its first start): a \
            folder without one is refused, and nothing is created in it.

            Exit status: 0 when every row was imported, 2 when some rows were refused (the others \
            were imported), 1 when nothing could be imported (the file is missing, too large or \
            not a device list) or the import stopped midway, 64 when an option is wrong (such as \
            a --keys-out file that exists already).

            Examples:
              handover admin import-devices fleet.csv --dry-run
              handover admin import-devices fleet.csv --keys-out fleet-keys.csv
              handover admin import-devices fleet.csv --all-or-nothing
              handover admin import-devices fleet.csv --database postgres://handover@127.0.0.1/handover --json
            """
    )

    @Argument(help: ArgumentHelp("The CSV file (UTF-8, at most 5 MB).", valueName: "file"))
    var file: String

    @Flag(help: "Check every row and print what would be imported; write nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Where to write the new devices' keys (CSV: line, name, serialNumber, deviceID, key). Default: <file>.keys.csv. Never overwritten.",
                               valueName: "file"))
    var keysOut: String?

    @Option(help: ArgumentHelp("Rows per transaction (1 to 10000).", valueName: "rows"))
    var batchSize = DeviceImport.Writes.defaultBatchSize

    @Flag(help: "Import every good row in one transaction, or none. Holds the database's write lock for the whole import: a running server's writes wait or fail meanwhile.")
    var allOrNothing = false

    @Flag(help: "Print the report as JSON (keys left out: they are in --keys-out).")
    var json = false

    @OptionGroup var storage: StorageOptions

    /// Says `message` on standard error, as the import's other failures do, and exits 1.
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode(1)
    }

    func validate() throws {
        guard DeviceImport.Writes.batchSizes.contains(batchSize) else {
            throw ValidationError("--batch-size: \(batchSize) rows; give 1 to 10000 (the default, 250, keeps each transaction well under a second).")
        }
    }

    func run() async throws {
        let input = URL(fileURLWithPath: file)
        let attributes = try? FileManager.default.attributesOfItem(atPath: input.path)
        // Nothing can be imported from a file that is not there or too large: a failure (1), as the
        // help says, not a usage mistake (64).
        guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
            throw Self.failure("\(file): no such file, or it cannot be read. Nothing was imported.")
        }
        guard size <= 5 * 1024 * 1024 else {
            throw Self.failure("\(file): the file has \(size) bytes; at most 5242880 (5 MB, about 50,000 devices). Split it. Nothing was imported.")
        }
        let keysPath = URL(fileURLWithPath: keysOut ?? input.path + ".keys.csv").path
        var keysFile: KeysFile?
        if !dryRun {
            do {
                keysFile = try KeysFile(creating: keysPath)
            } catch {
                throw ValidationError(error.description)
            }
        }
        var logger = Logger(label: "handover")
        logger.logLevel = .warning
        let report: DeviceImportReport
        do {
            report = try await HandoverServer.importDevices(try storage.configuration(), csv: try Data(contentsOf: input), dryRun: dryRun,
                                                            writes: .init(batchSize: batchSize, allOrNothing: allOrNothing), logger: logger,
                                                            progress: Self.progress(batchSize: batchSize))
        } catch let error as DeviceImportFileError {
            keysFile?.remove()
            FileHandle.standardError.write(Data("Error: \(file): \(error.description). Nothing was imported.\n".utf8))
            throw ExitCode(1)
        } catch let stopped as DeviceImportInterrupted {
            let count = stopped.report.imported.count
            if count > 0, let keysFile { try keysFile.write(stopped.report.keysCSV()) } else { keysFile?.remove() }
            let kept = count == 0 ? "Nothing was imported." : "\(count) device\(count == 1 ? " was" : "s were") imported before it stopped; their keys are in \(keysPath). Run the same file again to import the rest (the rows already imported are refused by serial number)."
            FileHandle.standardError.write(Data("Error: the import stopped: \(stopped.cause). \(kept)\n".utf8))
            throw ExitCode(1)
        } catch {
            keysFile?.remove()
            throw error
        }
        if let keysFile {
            if report.imported.isEmpty { keysFile.remove() } else { try keysFile.write(report.keysCSV()) }
        }
        if json {
            var shown = report
            for index in shown.imported.indices { shown.imported[index].key = nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(shown), as: UTF8.self))
        } else {
            if let export = report.export {
                let leftOut = report.ignoredColumns.joined(separator: ", ")
                print("Read as a \(export) device export" + (leftOut.isEmpty ? "." : "; its columns left out: \(leftOut)."))
            }
            let verb = dryRun ? "would be imported" : "imported"
            print("\(report.imported.count) device\(report.imported.count == 1 ? "" : "s") \(verb); \(report.refused.count) row\(report.refused.count == 1 ? "" : "s") refused.")
            for refusal in report.refused { print("  refused \(refusal)") }
            if !dryRun, !report.imported.isEmpty { print("Keys: \(keysPath) (readable only by you; each key is shown only there).") }
        }
        if !report.refused.isEmpty { throw ExitCode(2) }
    }

    /// Progress on standard error (standard output keeps the report, or the JSON): after each
    /// batch when the import has more than one, at most about 20 lines for a long one.
    static func progress(batchSize: Int) -> @Sendable (Int, Int) async throws -> Void {
        { done, total in
            guard total > batchSize else { return }
            let batches = (total + batchSize - 1) / batchSize
            let every = max(1, batches / 20) * batchSize
            guard done == total || done % every == 0 else { return }
            FileHandle.standardError.write(Data("imported \(done)/\(total)\n".utf8))
        }
    }
}
