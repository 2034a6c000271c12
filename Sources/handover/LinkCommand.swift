import ArgumentParser
import Foundation
import LinkCallbacks

/// `handover link`: make, inspect and check links.
struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Make, inspect and check ULC, x-callback-url and out-of-band links.",
        discussion: """
            A Universal Link Callback (ULC) asks an app to log out and then open one of two links:
              https://app.example.com/logout?ulc-success=<encoded URL>&ulc-error=<encoded URL>

            'inspect' and 'check' judge links with the same policy a receiving app uses: https only, \
            no user info, ports, IP hosts, backslashes, control characters or encoded line breaks, \
            no duplicate ulc-/x- parameters, no callback that is itself a ULC, at most 8 KB. \
            --allow-host narrows the callback hosts; --allow-scheme lets x-callback targets use \
            an app's custom scheme.
            """,
        subcommands: [Make.self, Inspect.self, Check.self]
    )

    /// Policy options shared by `inspect` and `check`.
    struct PolicyOptions: ParsableArguments {
        @Option(name: .customLong("allow-host"),
                help: ArgumentHelp("A host callbacks may go to: an exact host, or *.example.com for its subdomains. Repeatable.",
                                   valueName: "host"))
        var allowedHosts: [String] = []

        @Option(name: .customLong("allow-scheme"),
                help: ArgumentHelp("A custom scheme x-callback targets may use, such as launcher. Repeatable.", valueName: "scheme"))
        var allowedSchemes: [String] = []

        @Flag(name: .customLong("loopback-http"),
              help: "Developer mode: also accept http, ports and IP addresses on localhost and 127.0.0.1.")
        var loopbackHTTP = false

        func policy() throws -> CallbackPolicy {
            do {
                let hosts = allowedHosts.isEmpty ? nil : try HostAllowlist(allowedHosts)
                return CallbackPolicy(allowedHosts: hosts, allowedCustomSchemes: Set(allowedSchemes),
                                      allowsLoopbackHTTP: loopbackHTTP)
            } catch {
                throw ValidationError("--allow-host: \(error.detail). Accepted: \(error.accepted).")
            }
        }
    }
}

extension LinkCommand {
    struct Make: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a ULC logout link from an app's action and two callbacks.",
            discussion: """
                The callbacks are percent-encoded with the RFC 3986 unreserved set, so '&', '=', '?', \
                '#' and '%' inside them survive the trip.

                Example:
                  handover link make --action https://appb.example.com/logout \\
                      --success https://launcher.example.com/ulc/ok --error https://launcher.example.com/ulc/failed
                """
        )

        @Option(help: ArgumentHelp("The app's logout action: an https universal link, such as https://app.example.com/logout?force=1.",
                                   valueName: "url"))
        var action: String

        @Option(help: ArgumentHelp("Opened after a successful logout (or when nobody was signed in).", valueName: "url"))
        var success: String

        @Option(help: ArgumentHelp("Opened after an unrecoverable failure.", valueName: "url"))
        var error: String

        func run() async throws {
            do {
                let ulc = try UniversalLinkCallback(actionText: action, successText: success, errorText: error)
                _ = try CallbackPolicy.default.evaluate(ulc.text)
                print(ulc.text)
            } catch let failure {
                throw ValidationError("--\(failure.parameter == "ulc-success" ? "success" : failure.parameter == "ulc-error" ? "error" : failure.parameter): \(failure.detail). Accepted: \(failure.accepted).")
            }
        }
    }

    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a link's kind and every field, and whether a receiver would accept it.",
            discussion: """
                Exits 0 when the link is accepted, 1 when it is rejected (the reason is printed).

                Examples:
                  handover link inspect 'https://appb.example.com/logout?ulc-success=https%3A%2F%2Fappa.com%2Fok&ulc-error=https%3A%2F%2Fappa.com%2Ferr'
                  handover link inspect --allow-scheme mybusinessapp 'myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success'
                """
        )

        @Argument(help: ArgumentHelp("The link. Quote it: '&' means something to the shell.", valueName: "url"))
        var url: String

        @OptionGroup var policy: PolicyOptions

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        func run() async throws {
            let policy = try policy.policy()
            let report = LinkReport(url: url, policy: policy)
            if json {
                print(report.jsonLine(compact: false))
            } else {
                print(report.text)
            }
            if report.verdict == .reject { throw ExitCode(1) }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Judge many links: one URL per line on stdin, one JSON line per URL on stdout.",
            discussion: """
                Each output line is {"url":…,"verdict":"accept"|"reject","kind":…,"reason":…}. Blank \
                lines are skipped. Exits 0 when every link was read, whatever the verdicts.

                Example:
                  printf '%s\\n' "$URL1" "$URL2" | handover link check --allow-host launcher.example.com
                """
        )

        @OptionGroup var policy: PolicyOptions

        func run() async throws {
            let policy = try policy.policy()
            var accepted = 0, rejected = 0
            while let line = readLine(strippingNewline: true) {
                let url = line.hasSuffix("\r") ? String(line.dropLast()) : line
                if url.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                let report = LinkReport(url: url, policy: policy)
                if report.verdict == .accept { accepted += 1 } else { rejected += 1 }
                print(report.jsonLine(compact: true))
            }
            FileHandle.standardError.write(Data("\(accepted) accepted, \(rejected) rejected\n".utf8))
        }
    }
}
