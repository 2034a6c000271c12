import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverProtocol
import HandoverServer
import Logging
import QRCode

/// `handover tester`: the ULC conformance tester, from the terminal.
struct TesterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tester",
        abstract: "Test an app's Universal Link Callback logout the way the spec demands, and print a verdict.",
        subcommands: [Run.self]
    )
}

extension TesterCommand {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the ULC conformance tester against an app's logout action (or a simulated app).",
            discussion: """
                The tester starts a Handover server in this process (temporary SQLite), then:
                  1. fetches and validates the action domain's apple-app-site-association file and \
                says which appID claims the action path, or why none does;
                  2. makes a test with single-use success and error URLs on this server and prints the \
                ULC link, with a QR code to scan on the phone;
                  3. plays three rounds, each started when you press Enter:
                       callback   the app must answer on its success URL within the 20 s budget
                       duplicate  the same link, opened twice, must be answered twice
                       hostile    a callback host outside the app's allowlist must not be opened \
                (only with --allowlist: the app declares one)
                  4. prints the verdict table. Exit status: 0 passed, 1 failed.

                The phone must reach this server: give --public-url (an https origin that a TLS proxy \
                forwards to --port), and for the hostile round HANDOVER_TESTER_HOSTILE_URL, a second \
                name of the same server.

                With --simulate BEHAVIOUR, a simulated app on a simulated phone plays every round by \
                itself, in real time (a silent app takes the whole 20 s budget). Behaviours: conformant, \
                slow, silent, flaky, failing, premature, killed.

                Examples:
                  handover tester run --simulate conformant
                  handover tester run --simulate premature          # fails the hostile round
                  handover tester run --action https://mail.example.com/ulc/logout --allowlist \\
                      --port 8443 --public-url https://tester.example.com
                """
        )

        @Option(help: ArgumentHelp("The app's logout action URL. Not needed with --simulate.", valueName: "url"))
        var action: String?

        @Option(help: ArgumentHelp("Play a simulated app with this behaviour instead of a person with a phone.", valueName: "behaviour"))
        var simulate: String?

        @Flag(help: "The app accepts callbacks only to an allowlist of hosts: adds the hostile-callback round.")
        var allowlist = false

        @Option(help: ArgumentHelp("Port for the tester's server; 0 picks a free one.", valueName: "port"))
        var port: Int = 0

        @Option(name: .customLong("public-url"), help: ArgumentHelp("The origin the phone reaches this server at.", valueName: "url"))
        var publicURL: String?

        @Flag(name: .customLong("developer-mode"), help: "Accept an http logout action on loopback with a port (a local test app).")
        var developerMode = false

        @Option(help: ArgumentHelp("The answer budget in seconds (the ULC spec says 20).", valueName: "seconds"))
        var budget: Int = 20

        @Flag(help: "Print the verdict as JSON.")
        var json = false

        static let behaviours = ["conformant", "slow", "silent", "flaky", "failing", "premature", "killed"]

        func validate() throws {
            if let simulate, !Self.behaviours.contains(simulate) {
                throw ValidationError("--simulate: '\(simulate)' is not a behaviour. Accepted: \(Self.behaviours.joined(separator: ", ")).")
            }
            if simulate == nil && (action ?? "").isEmpty {
                throw ValidationError("give --action with the app's logout action URL (https://…), or --simulate BEHAVIOUR")
            }
            if !(0...65535).contains(port) { throw ValidationError("--port: \(port) is not a port. Accepted: 0 to 65535.") }
            if !(1...120).contains(budget) { throw ValidationError("--budget: \(budget) is out of range. Accepted: 1 to 120 seconds.") }
        }

        func run() async throws {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .warning
                return handler
            }
            var configuration = try ServerConfiguration.fromEnvironmentForCommand()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-tester-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            configuration.dataDirectory = folder
            configuration.databaseURL = nil
            configuration.port = port
            configuration.developerMode = developerMode || simulate != nil
            configuration.schedulerInterval = .milliseconds(100)
            if let publicURL {
                do {
                    configuration.publicURL = try ServerConfiguration.parsePublicURL(publicURL, setting: "--public-url")
                } catch let error as ConfigurationError {
                    throw ValidationError(error.description)
                }
            }
            let phone = simulate.map { _ in SimulatedTesterPhone() }
            let server = try await HandoverServer.start(configuration, logger: Logger(label: "handover-tester"), testerSimulator: phone)
            let passed: Bool
            do {
                passed = try await play(server)
            } catch {
                try? await server.shutdown()
                await phone?.phone.shutdown()
                throw error
            }
            try await server.shutdown()
            await phone?.phone.shutdown()
            if !passed { throw ExitCode(1) }
        }

        private func play(_ server: HandoverServer) async throws -> Bool {
            let id: UUID
            do {
                id = try await server.createTesterRun(action: action, declaresAllowlist: allowlist, simulate: simulate, budgetSeconds: budget)
            } catch let error as TesterInputError {
                throw ValidationError(error.reason)
            }
            guard let association = try await server.testerAssociation(id) else { return false }
            say("Association file: \(association.url)")
            say("  \(association.summary)")
            for finding in association.findings { say("  \(finding)") }
            if simulate == nil {
                try await playByHand(server, id)
            } else {
                say("A simulated \(simulate ?? "") app plays every round…")
                var last: [String] = []
                while true {
                    let rounds = try await server.testerRounds(id) ?? []
                    let lines = rounds.enumerated().map { "  round \($0.offset + 1) \($0.element.kind.rawValue): \($0.element.status.rawValue)" }
                    for (index, line) in lines.enumerated() where index >= last.count || last[index] != line { say(line) }
                    last = lines
                    if let verdict = try await server.testerVerdict(id), verdict.status != .running { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            guard let verdict = try await server.testerVerdict(id) else { return false }
            print(json ? try Self.jsonText(verdict) : Self.table(verdict))
            return verdict.status == .passed
        }

        private func playByHand(_ server: HandoverServer, _ id: UUID) async throws {
            let rounds = try await server.testerRounds(id) ?? []
            for (index, round) in rounds.enumerated() {
                guard let now = try await server.testerRounds(id), now[index].status == .ready else { continue }
                say("")
                say("Round \(index + 1) (\(round.kind.rawValue)): \(round.instruction)")
                say(round.link)
                if let code = try? QRCode(encoding: round.link, correction: .low) { say(code.terminalText(quietZone: 2)) }
                say("Press Enter to start the round (the clock starts then).")
                guard readLine() != nil else { return }
                try await server.startTesterRound(id, number: index + 1)
                let started = ContinuousClock.now
                var lastSecond = -1
                while let current = try await server.testerRounds(id), current[index].status == .waiting {
                    let second = Int(started.duration(to: .now).components.seconds)
                    if second != lastSecond && second % 5 == 0 { say("  waiting… \(second) s of the \(budget) s budget") }
                    lastSecond = second
                    try await Task.sleep(for: .milliseconds(100))
                }
                if let current = try await server.testerRounds(id) {
                    say("  \(current[index].status.rawValue): \(current[index].detail ?? "")")
                }
            }
        }

        static func table(_ verdict: TesterVerdict) -> String {
            var lines = ["", "Verdict: \(verdict.status.rawValue.uppercased())"]
            for row in verdict.rows {
                lines.append("  \(row.check.padding(toLength: 18, withPad: " ", startingAt: 0)) \(row.result.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(row.detail)")
            }
            return lines.joined(separator: "\n")
        }

        static func jsonText(_ verdict: TesterVerdict) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            struct Output: Encodable {
                var status: TesterVerdictStatus
                var rows: [TesterVerdict.Row]
            }
            return String(decoding: try encoder.encode(Output(status: verdict.status, rows: verdict.rows)), as: UTF8.self)
        }
    }
}

extension ServerConfiguration {
    /// The environment's configuration, with a configuration error as a usage error.
    static func fromEnvironmentForCommand() throws -> ServerConfiguration {
        do {
            return try ServerConfiguration.fromEnvironment()
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
