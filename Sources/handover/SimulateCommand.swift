import ArgumentParser
import DeviceSimulator
import Foundation
import HandoverClient

/// `handover simulate`: play Handover flows on a simulated phone, in simulated time.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Play Handover flows on a simulated phone, in simulated time.",
        subcommands: [Logout.self]
    )
}

extension SimulateCommand {
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log a list of simulated apps out from a launcher, and print the report.",
            discussion: """
                Each app has a behaviour:
                  conformant  logs out in 1 s and calls back                 -> succeeded
                  slow        takes 30 s, longer than the 20 s budget         -> timed_out after every resend
                  silent      never calls back                                -> timed_out after every resend
                  flaky       fails once (retryable); the receiver retries    -> succeeded
                  failing     fails for good; opens the error URL             -> failed
                  premature   calls back before its logout is done            -> failed (still signed in)
                  killed      force-quit just before the link; cold-started   -> succeeded

                The apps' AASA file is served over http on 127.0.0.1 (developer mode), and the phone \
                fetches it and routes links with the UniversalLinks matcher, as iOS does. Time is \
                simulated: a run with 20 s timeouts finishes in well under a second.

                Example:
                  handover simulate logout --apps conformant,slow,silent,flaky,failing,killed,premature --json
                """
        )

        @Option(help: ArgumentHelp("Comma-separated behaviours, one app each: \(AppBehaviour.allCases.map(\.rawValue).joined(separator: ", ")).",
                                   valueName: "behaviours"))
        var apps: String

        @Option(help: "Seconds the launcher waits for each app's answer.")
        var timeout: Int = 20

        @Option(help: "Times a link is sent again after a timeout.")
        var resends: Int = 2

        @Flag(help: "Print the report as JSON.")
        var json = false

        func behaviours() throws -> [AppBehaviour] {
            let names = apps.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw ValidationError("--apps is empty. Give behaviours such as --apps conformant,slow.") }
            return try names.map { name in
                guard let behaviour = AppBehaviour(rawValue: name.lowercased()) else {
                    throw ValidationError("--apps: '\(name)' is not a behaviour. Use one of: \(AppBehaviour.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                return behaviour
            }
        }

        func validate() throws {
            _ = try behaviours()
            guard (1...20).contains(timeout) else { throw ValidationError("--timeout must be 1 to 20 seconds; the spec's budget is 20 s.") }
            guard (0...10).contains(resends) else { throw ValidationError("--resends must be 0 to 10.") }
        }

        func run() async throws {
            let started = ContinuousClock.now
            let result = try await LogoutSimulation(behaviours: try behaviours(), timeout: .seconds(timeout), resends: resends).run()
            let wall = started.duration(to: .now)
            let wallMilliseconds = wall.components.seconds * 1000 + wall.components.attoseconds / 1_000_000_000_000_000
            if json {
                print(try SimulationJSON(result: result, wallMilliseconds: wallMilliseconds).text())
            } else {
                print("Logout run \(result.report.runID) on a simulated phone (\(result.simulatedMilliseconds) ms simulated, \(wallMilliseconds) ms wall)")
                for app in result.apps {
                    let line = "  \(app.app.padding(toLength: 12, withPad: " ", startingAt: 0)) \(app.outcome.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) attempts \(app.attempts)  \(app.durationMilliseconds) ms"
                    print(line + (app.reason.map { "  (\($0))" } ?? ""))
                }
            }
        }
    }
}

/// The JSON form of a simulated run.
struct SimulationJSON: Encodable {
    struct App: Encodable {
        var app: String
        var behaviour: String
        var outcome: String
        var attempts: Int
        var duration_ms: Int64
        var reason: String?
    }

    var run_id: String
    var apps: [App]
    var simulated_ms: Int64
    var wall_ms: Int64

    init(result: LogoutSimulation.Result, wallMilliseconds: Int64) {
        run_id = result.report.runID
        apps = result.apps.map {
            App(app: $0.app, behaviour: $0.behaviour.rawValue, outcome: $0.outcome.rawValue, attempts: $0.attempts,
                duration_ms: $0.durationMilliseconds, reason: $0.reason)
        }
        simulated_ms = result.simulatedMilliseconds
        wall_ms = wallMilliseconds
    }

    func text() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
