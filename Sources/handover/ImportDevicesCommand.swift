import ArgumentParser
import Foundation
import HandoverServer
import Logging

/// `handover admin import-devices`: register a fleet from a CSV file.
struct ImportDevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-devices",
        abstract: "Register devices from a CSV file (name, serial number, MDM id), each with its device key.",
        discussion: """
            The first line names the columns, in any order: name (required), serialNumber and \
            mdmDeviceID (optional; the MDM finds a device by its serial number). For example:

              name,serialNumber,mdmDeviceID
              ward-7-phone-1,C02XK1ABJG5H,42
              "ward 7, phone 2",C02XK1ABJG5J,43

            Every row is checked first. A row with a bad value (control characters, a malformed \
            serial number), a serial number already in the file or the registry, or more or fewer \
            fields than the header is refused, with its line and why; the good rows are imported \
            together, in one transaction. A header with an unknown column, a file over 5 MB or \
            one that is not UTF-8 CSV is refused whole.

            The devices' keys (each shown only now) are written to --keys-out, readable only by \
            you: give each launcher its key. Use the same --data-dir or --database as \
            'handover serve'; the server may be running.

            Exit status: 0 when every row was imported, 2 when some rows were refused (the others \
            were imported), 1 when nothing could be imported.

            Examples:
              handover admin import-devices fleet.csv --dry-run
              handover admin import-devices fleet.csv --keys-out fleet-keys.csv
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

    @Flag(help: "Print the report as JSON (keys left out: they are in --keys-out).")
    var json = false

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let input = URL(fileURLWithPath: file)
        let attributes = try? FileManager.default.attributesOfItem(atPath: input.path)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
            throw ValidationError("\(file): no such file, or it cannot be read.")
        }
        guard size <= 5 * 1024 * 1024 else {
            throw ValidationError("\(file): the file has \(size) bytes; at most 5242880 (5 MB, about 50,000 devices). Split it.")
        }
        let keysFile = URL(fileURLWithPath: keysOut ?? input.path + ".keys.csv")
        if !dryRun, FileManager.default.fileExists(atPath: keysFile.path) {
            throw ValidationError("--keys-out: \(keysFile.path) exists; keys are never written over. Move it, or name another file.")
        }
        var logger = Logger(label: "handover")
        logger.logLevel = .warning
        let report: DeviceImportReport
        do {
            report = try await HandoverServer.importDevices(try storage.configuration(), csv: try Data(contentsOf: input), dryRun: dryRun, logger: logger)
        } catch let error as DeviceImportFileError {
            FileHandle.standardError.write(Data("Error: \(file): \(error.description). Nothing was imported.\n".utf8))
            throw ExitCode(1)
        }
        if !dryRun, !report.imported.isEmpty {
            try writeKeys(report, to: keysFile)
        }
        if json {
            var shown = report
            for index in shown.imported.indices { shown.imported[index].key = nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(shown), as: UTF8.self))
        } else {
            let verb = dryRun ? "would be imported" : "imported"
            print("\(report.imported.count) device\(report.imported.count == 1 ? "" : "s") \(verb); \(report.refused.count) row\(report.refused.count == 1 ? "" : "s") refused.")
            for refusal in report.refused { print("  refused \(refusal)") }
            if !dryRun, !report.imported.isEmpty { print("Keys: \(keysFile.path) (readable only by you; each key is shown only there).") }
        }
        if !report.refused.isEmpty { throw ExitCode(2) }
    }

    /// The keys file, created readable by its owner only, before anything is written to it.
    private func writeKeys(_ report: DeviceImportReport, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("--keys-out: \(url.path) cannot be created. The devices were imported; make new keys with POST /api/v1/devices.")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(report.keysCSV().utf8))
    }
}
