import ArgumentParser
import Foundation
import HandoverServer

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
            """,
        subcommands: [Check.self, Example.self])

    /// `handover config check FILE`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a configuration file and print the settings it gives, secrets hidden.",
            discussion: """
                Every value is checked as `handover serve` would check it, with the environment \
                of this shell over the file. A key the file should not have is refused with its \
                line and the nearest known key. Exit status: 0 when the file is good, 1 otherwise.
                """)

        @Argument(help: ArgumentHelp("The YAML file.", valueName: "file"))
        var file: String

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let read = try await ConfigurationFile.read(file)
            let merged = read.merged(over: environment)
            var configuration = try ServerConfiguration.fromEnvironment(merged)
            try SessionOptions.parse([]).apply(to: &configuration, environment: merged)
            try PushOptions.parse([]).apply(to: &configuration, environment: merged)
            try AdminSignInOptions.parse([]).apply(to: &configuration, environment: merged)
            print("\(file): \(read.values.count) setting\(read.values.count == 1 ? "" : "s"), every value accepted. The effective configuration:")
            for line in read.effective(over: environment) { print("  " + line) }
            print("Everything else takes its default (`handover serve --help`).")
        }
    }

    /// `handover config example`.
    struct Example: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "example",
            abstract: "Print a commented configuration file with every setting.",
            discussion: "Every setting is commented out; uncomment the ones you set. `handover config check` reads the result.")

        func run() throws {
            var lines = ["# Handover's configuration: `handover serve --config FILE`.",
                         "# One setting per line. The environment (HANDOVER_*) overrides this file; flags override both.",
                         "# `handover config check FILE` checks it and prints what it gives."]
            var group = ""
            for setting in ConfigurationSetting.all {
                if setting.group != group {
                    group = setting.group
                    lines += ["", "# \(group)"]
                }
                lines.append("# \(setting.key): \(Self.quoted(setting.example))    # \(setting.summary)")
            }
            print(lines.joined(separator: "\n"))
        }

        /// A value as YAML writes it: quoted when it holds what YAML would read otherwise.
        static func quoted(_ value: String) -> String {
            let plain = value.allSatisfy { $0.isLetter || $0.isNumber || "-./:@_+".contains($0) } && !value.hasPrefix("-")
            return plain ? value : "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }
}
