import Foundation
import Testing

/// The command line's one exit-code rule and its answers to misuse (issue 41): 64 for a usage
/// mistake, with the mistaken subcommand's own usage and, for a slip, what was probably meant.
@Suite(.timeLimit(.minutes(5))) struct CommandMisuseTests {
    struct Misuse: Sendable, CustomStringConvertible {
        var arguments: [String]
        /// Each must be on standard error.
        var says: [String]
        var description: String { arguments.joined(separator: " ") }
    }

    static let misuses: [Misuse] = [
        Misuse(arguments: ["serv"], says: ["'serv' is not a subcommand of 'handover'", "Did you mean 'serve'?", "Usage: handover <subcommand>"]),
        Misuse(arguments: ["link", "inspec", "https://example.com"],
               says: ["'inspec' is not a subcommand of 'handover link'", "Did you mean 'inspect'?", "See 'handover link --help'"]),
        Misuse(arguments: ["serve", "--prot", "9000"], says: ["Unknown option '--prot'", "Did you mean '--port'?", "Usage: handover serve"]),
        Misuse(arguments: ["admin", "custody-report", "--from", "yesterday"],
               says: ["--from: 'yesterday' is not a time", "Usage: handover admin custody-report", "See 'handover admin custody-report --help'"]),
        Misuse(arguments: ["qr", "--ecc", "Z", "text"], says: ["'Z' is not an error correction level", "Usage: handover qr"]),
        Misuse(arguments: ["serve", "--port", "99999"], says: ["--port: 99999 is not a port", "Usage: handover serve"]),
        Misuse(arguments: ["frobnicate"], says: ["'frobnicate' is not a subcommand of 'handover'", "Usage: handover <subcommand>"]),
    ]

    @Test(arguments: misuses) func aMisuseExits64WithItsCommandsUsage(_ misuse: Misuse) async throws {
        let result = try await HandoverBinary.run(misuse.arguments)
        #expect(result.status == 64, "\(misuse): exit \(result.status)\n\(result.stderr)")
        for text in misuse.says {
            #expect(result.stderr.contains(text), "\(misuse): '\(text)' not in:\n\(result.stderr)")
        }
        #expect(!result.stderr.contains("Did you mean") || !misuse.arguments.contains("frobnicate"), "nothing is close to frobnicate")
        #expect(result.stdout.isEmpty, "\(misuse): \(result.stdout)")
    }

    @Test func theRuleIsInTheHelpAndEveryHelpFitsEightyColumns() async throws {
        let root = try await HandoverBinary.run(["--help"])
        #expect(root.stdout.contains("64 for a usage") && root.stdout.contains("partial success (an import"), "\(root.stdout)")
        for path in [[], ["serve"], ["demo"], ["admin"], ["admin", "import-devices"], ["admin", "custody-report"], ["link", "inspect"],
                     ["bench", "shift-change"], ["tester", "run"], ["aasa", "check"], ["qr"]] {
            let help = try await HandoverBinary.run(path + ["--help"], environment: ["COLUMNS": "80"])
            // ArgumentParser keeps the usage line whole, and a URL or JSON example cannot break.
            let long = help.stdout.split(separator: "\n").map(String.init)
                .filter { $0.count > 80 && !$0.hasPrefix("USAGE:") && $0.trimmingCharacters(in: .whitespaces).contains(" ") }
            #expect(help.status == 0 && long.isEmpty, "handover \(path.joined(separator: " ")) --help: \(long.count) lines over 80 columns: \(long.prefix(3))")
        }
    }
}
