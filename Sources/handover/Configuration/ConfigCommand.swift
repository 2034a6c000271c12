import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer
import Logging

/// `handover config`: the configuration file of `handover serve --config`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check or write the configuration file that `handover serve --config` reads.",
        discussion: """
            A configuration file is YAML, one setting per line: its key is the environment \
            variable without HANDOVER_, in lower case with dashes (HANDOVER_PUBLIC_URL is \
            public-url, as the flag --public-url is). The environment overrides the file, and \
            flags override both.

              handover config example > /etc/handover/handover.yaml
              handover config check /etc/handover/handover.yaml
              handover serve --config /etc/handover/handover.yaml
              handover config reference      # every setting, as docs/configuration.md
            """,
        subcommands: [Check.self, Example.self, Reference.self])

    /// `handover config check FILE`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a configuration file and print the settings it gives, secrets hidden.",
            discussion: """
                Every value is checked as `handover serve` would check it, with the environment \
                of this shell over the file, and every mistake is reported at once, each on its \
                own line: a value from the file with the file's path, the line and the key \
                (handover.yaml:3: port: 'abc' is not a port number. Accepted: 0 to 65535.), one \
                from the environment with its variable (HANDOVER_PORT: …), a setting another one \
                requires with the key to add (handover.yaml: mdm-action: is missing …). A key the \
                file should not have is refused with its line and the nearest known key. Exit \
                status: 0 when the file is good, 1 otherwise.

                  handover config check /etc/handover/handover.yaml
                """)

        @Argument(help: ArgumentHelp("The YAML file.", valueName: "file"))
        var file: String

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let (read, lineProblems) = try ConfigurationFile.scan(file)
            let check = ConfigurationCheck { merged in
                var configuration = try ServerConfiguration.fromEnvironment(merged)
                try SessionOptions.parse([]).apply(to: &configuration, environment: merged)
                try PushOptions.parse([]).apply(to: &configuration, environment: merged)
                try AdminSignInOptions.parse([]).apply(to: &configuration, environment: merged)
            }
            let (mistakes, other) = check.mistakes(in: read.merged(over: environment))
            let valueProblems = mistakes.map { read.problem(for: $0, environment: environment) }
            // The file's lines in order, then what has no line (missing settings, the environment).
            var problems = (lineProblems + valueProblems.filter { $0.line != nil }).sorted { ($0.line ?? 0) < ($1.line ?? 0) }
            problems += valueProblems.filter { $0.line == nil && $0.path != nil } + valueProblems.filter { $0.path == nil }
            if let other { problems.append(ConfigurationFile.Problem(path: nil, line: nil, text: String(describing: other))) }
            guard problems.isEmpty else { throw ConfigurationFile.Problems(path: file, problems: problems) }
            print("\(file): \(read.values.count) setting\(read.values.count == 1 ? "" : "s"), every value accepted. The effective configuration:")
            for line in read.effective(over: environment) { print("  " + line) }
            print("Everything else takes its default (docs/configuration.md, `handover config example`).")
            for line in await Self.lendingPeriodWarnings(try ServerConfiguration.fromEnvironment(read.merged(over: environment)),
                                                         fromFile: (environment["HANDOVER_LENDING_PERIODS"] ?? "").isEmpty) {
                print(line)
            }
        }

        /// A warning for each lending period of a site no device is at: it can never apply, and is
        /// most likely a misspelling. The devices are read from the configured database (read
        /// only, no migration); without a database yet there is nothing to compare.
        static func lendingPeriodWarnings(_ configuration: ServerConfiguration, fromFile: Bool) async -> [String] {
            let periods = configuration.custody.siteLendingPeriods.keys.sorted { $0.key < $1.key }
            guard !periods.isEmpty else { return [] }
            let setting = fromFile ? "lending-periods" : "HANDOVER_LENDING_PERIODS"
            let sites: [String: String]
            var logger = Logger(label: "handover")
            logger.logLevel = .warning
            do {
                guard let found = try await HandoverServer.fleetSites(configuration, logger: logger) else {
                    return []
                }
                sites = found
            } catch {
                return ["Note: \(setting) was not compared with the devices' sites, which could not be read (\(error))."]
            }
            let known = sites.values.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return FleetSites.unknown(periods, among: sites).map { site in
                "Warning: \(setting): no device is at the site '\(site.text)', so its lending period never applies. "
                    + (known.isEmpty ? "No device has a site yet." : "The devices' sites: \(known).")
            }
        }
    }

    /// `handover config example`.
    struct Example: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "example",
            abstract: "Print a commented configuration file with every setting, its default and when it is required.",
            discussion: """
                Every setting is commented out, showing its default where it has one (else an \
                example), what it sets, and when another setting requires it (mdm-action when mdm \
                is set). Uncomment the ones you set; `handover config check` reads the result.

                  handover config example > /etc/handover/handover.yaml
                """)

        func run() throws {
            print(ConfigurationReference.example())
        }
    }

    /// `handover config reference`.
    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reference",
            abstract: "Print the settings reference (Markdown): every setting, its variable, default and when it is required.",
            discussion: """
                The page docs/configuration.md is this command's output; a test fails when the \
                two differ. After changing a setting:

                  swift run handover config reference > docs/configuration.md
                """)

        func run() throws {
            print(ConfigurationReference.page(), terminator: "")
        }
    }
}
