import ArgumentParser
import Foundation
import HandoverServer
import Logging

/// `handover admin custody-report`: who held which device, from the server's database.
struct CustodyReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "custody-report",
        abstract: "Print who held which device and how each hand-over ended (CSV or JSON lines).",
        discussion: """
            One row per custody: the device, the person (name, email, user id), how they signed in, \
            when they checked the device out and in, the hand-over's run and outcome, and the apps \
            that stayed signed in. Use the same --data-dir or --database as 'handover serve'; the \
            server may be running.

            Examples:
              handover admin custody-report --from 2026-11-26 --to 2026-11-27 --csv > day.csv
              handover admin custody-report --from 2026-11-26T07:00:00Z --to 2026-11-26T19:00:00Z
            """
    )

    @Option(help: ArgumentHelp("Check-outs at or after this time: an ISO 8601 date-time, or a day (2026-11-26, from its start in UTC).",
                               valueName: "time"))
    var from: String?

    @Option(help: ArgumentHelp("Check-outs before this time (as --from).", valueName: "time"))
    var to: String?

    @Flag(help: "CSV (RFC 4180) instead of JSON lines.")
    var csv = false

    @OptionGroup var storage: StorageOptions

    static func parse(_ text: String, option: String) throws -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return day }
        throw ValidationError("\(option): '\(text)' is not a time. Accepted: an ISO 8601 date-time such as 2026-11-26T07:00:00Z, or a day such as 2026-11-26.")
    }

    func run() async throws {
        let from = try from.map { try Self.parse($0, option: "--from") }
        let to = try to.map { try Self.parse($0, option: "--to") }
        if let from, let to, to <= from { throw ValidationError("--to: it must be after --from.") }
        var logger = Logger(label: "handover")
        logger.logLevel = .warning
        let report = try await HandoverServer.custodyReport(try storage.configuration(), from: from, to: to, csv: csv, logger: logger)
        FileHandle.standardOutput.write(Data(report.utf8))
    }
}
