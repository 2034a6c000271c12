import ArgumentParser
import Foundation
import HandoverProtocol

/// The `handover` command: the root of every subcommand.
@main
struct Handover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handover",
        abstract: "Sign users in and out of iOS apps through links, on shared devices.",
        discussion: """
            Handover speaks Universal Link Callbacks (ULC), x-callback-url and out-of-band links, \
            and checks the association files that make universal links work.

            Start with:
              handover demo                   the whole system on a simulated phone, nothing to set up
              handover serve                  run the server (SQLite in ./.handover, no set-up)
              handover config example         a configuration file with every setting, for serve --config
              handover tester run --simulate conformant
                                              the ULC conformance tester, from the terminal
              handover link inspect URL       what kind of link is this, and would a receiver accept it?
              handover link make --help       build a ULC logout link
              handover aasa check URL|FILE    validate an apple-app-site-association file
              handover qr TEXT                a QR code in the terminal, or --png/--svg to a file

            Exit status: 0 when the command did what it was asked; 64 for a usage mistake (an \
            unknown subcommand or option, a value that is not accepted; the message names it and \
            the command's usage follows); 1 when it failed (a server that cannot start, a file \
            that cannot be read, a check that found problems); 2 for partial success (an import \
            with refused rows).
            """,
        version: HandoverVersion.current,
        subcommands: [ServeCommand.self, ConfigCommand.self, DemoCommand.self, TesterCommand.self, AdminCommand.self, AuditCommand.self, LinkCommand.self,
                      AASACommand.self, SimulateCommand.self, BenchCommand.self, QRCommand.self]
    )

    /// Runs the command the arguments name. A mistyped subcommand or option gets a suggestion, and
    /// a usage mistake found while running (a value checked in `run()`) prints that subcommand's
    /// own usage, not the root's.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let mistake = CommandSuggestion(subcommandIn: arguments, root: Self.self) {
            FileHandle.standardError.write(Data(mistake.message(root: Self.self).utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            if let mistake = CommandSuggestion(optionIn: arguments, error: error, root: Self.self) {
                FileHandle.standardError.write(Data(mistake.message(root: Self.self).utf8))
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            exit(withError: error)
        }
        do {
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure, !(error is ExitCode), !(error is CleanExit) else { exit(withError: error) }
            let (_, path, _) = CommandSuggestion.command(for: arguments, root: Self.self)
            let usage = usageString(for: type(of: command)).trimmingCharacters(in: .whitespacesAndNewlines)
            FileHandle.standardError.write(Data(("Error: \(message(for: error))\n" + (usage.hasPrefix("Usage:") ? usage : "Usage: \(usage)") + "\n"
                + "  See '\(path.joined(separator: " ")) --help' for more information.\n").utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }
}
