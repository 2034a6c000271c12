import ArgumentParser
import Foundation
import HandoverCore
import HandoverSchema
import HandoverServer
import Logging

/// `handover admin`: manage the server's keys from the machine it runs on.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Manage API keys, import devices and report custody directly in the server's database.",
        subcommands: [CreateKey.self, ImportDevicesCommand.self, CustodyReportCommand.self, BackupCommand.self, RestoreCommand.self]
    )

    struct CreateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-key",
            abstract: "Create an API key and print it (it is stored hashed and shown only now).",
            discussion: """
                Use the same --data-dir or --database as 'handover serve'. The server may be running.
                The folder must hold its database already ('handover serve' makes it on its first
                start); a folder without one is refused, and nothing is created in it.

                Examples:
                  handover admin create-key --scope admin --name "IT on-call"
                  handover admin create-key --scope viewer --name "ward-7 wall screen" --expires-in 90d --site "Ward 7"
                  handover admin create-key --scope admin --database postgres://handover@127.0.0.1/handover
                Device keys are usually made with POST /api/v1/devices, which ties the key to its device.
                """
        )

        @Option(help: ArgumentHelp("""
            admin (the registry, webhooks and every run), operator (starts runs, puts devices back in service, \
            registers devices; reads everything), viewer (reads), or device (one device's own runs).
            """, valueName: "scope"))
        var scope: String

        @Option(help: "A name to tell keys apart: who or what holds it (\"IT on-call\", \"ward-7 wall screen\").")
        var name: String = "admin key"

        @Option(name: .customLong("expires-in"),
                help: ArgumentHelp("Make the key stop working after this long: days or hours, such as 90d or 12h (1 hour to 3650 days). Default: never.",
                                   valueName: "duration"))
        var expiresIn: String?

        @Option(help: ArgumentHelp("Make a key for one site: it opens only the dashboard, with its role at that site (a ward's wall screen); the API refuses it. Default: every site.",
                                   valueName: "site"))
        var site: String?

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            guard let scope = APIKeyScope(rawValue: scope) else {
                throw ValidationError("--scope: '\(scope)' is not a scope. Accepted: admin, operator, viewer, device.")
            }
            var expiresAt: Date?
            if let expiresIn {
                do {
                    expiresAt = try HandoverServer.keyExpiry(expiresIn, option: "--expires-in")
                } catch let error as HandoverServer.KeyLifetimeError {
                    throw ValidationError(error.description)
                }
            }
            var siteName: SiteName?
            if let site {
                guard scope != .device else { throw ValidationError("--site: a device's key is for its device, which has its own site.") }
                do throws(SiteNameError) { siteName = try SiteName(site) } catch {
                    throw ValidationError("--site: '\(site)' \(error.problem). Accepted: \(SiteName.acceptedForm).")
                }
            }
            var logger = Logger(label: "handover")
            logger.logLevel = .warning
            let key = try await HandoverServer.createKey(try storage.configuration(), name: name, scope: scope, expiresAt: expiresAt, site: siteName,
                                                         logger: logger)
            print(key)
        }
    }
}
