import ArgumentParser
import DeviceSimulator
import Foundation
import HandoverClient

/// `handover simulate`: play Handover flows on a simulated phone, in simulated time.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Play Handover flows on a simulated phone, in simulated time.",
        subcommands: [Logout.self, OutOfBandOperation.self]
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

                Against a real server (--server): the server issues the links and keeps the deadlines; the \
                simulated phone's launcher opens the links and reports the callbacks through the API, and \
                its callback links reach the launcher through the server's own AASA file. Time is real, \
                so keep --timeout small: a slow or silent app takes about timeout x (1 + resends). The \
                server must run with --developer-mode (logout actions are on the simulator's loopback port).
                  handover serve --port 8080 --developer-mode
                  handover simulate logout --server http://127.0.0.1:8080 --admin-key KEY \\
                      --apps conformant,slow,silent,flaky,failing,killed,premature --timeout 3 --resends 2
                With --admin-key it registers sim-launcher, one app sim-<behaviour> per behaviour (reused \
                by name; re-created when their port or timing differ) and a device. With --device-key and \
                --device-id it registers nothing: the registry must already hold those sim-* apps, made \
                with the same --app-port, as its only target apps, for example:
                  handover simulate logout --server URL --admin-key KEY --apps conformant --app-port 9311
                  handover simulate logout --server URL --device-id ID --device-key KEY --apps conformant --app-port 9311
                The report lists every app of the run; another target app of the registry, which the \
                simulated phone does not have, is marked "not played" (it usually times out). With \
                --server the exit status is 1 when the run did not complete.
                """
        )

        @Option(help: ArgumentHelp("Comma-separated behaviours, one app each: \(AppBehaviour.allCases.map(\.rawValue).joined(separator: ", ")).",
                                   valueName: "behaviours"))
        var apps: String

        @Option(name: .customLong("x-callback-apps"),
                help: ArgumentHelp("Comma-separated behaviours of apps without ULC, logged out by x-callback-url on their own scheme "
                                   + "(iOS asks the person first; each prompt is counted). With --server, needs --admin-key.",
                                   valueName: "behaviours"))
        var xCallbackApps: String = ""

        @Option(help: "Seconds the launcher (or, with --server, the server) waits for each app's answer.")
        var timeout: Int = 20

        @Option(help: ArgumentHelp("A Handover server to drive, such as http://127.0.0.1:8080 (its public URL).", valueName: "url"))
        var server: String?

        @Option(name: .customLong("admin-key"), help: ArgumentHelp("With --server: an admin key, to register the simulated apps and a device.", valueName: "key"))
        var adminKey: String?

        @Option(name: .customLong("device-key"), help: ArgumentHelp("With --server and --device-id: a device key; nothing is registered.", valueName: "key"))
        var deviceKey: String?

        @Option(name: .customLong("device-id"), help: ArgumentHelp("With --server and --device-key: the device's id.", valueName: "uuid"))
        var deviceID: String?

        @Option(name: .customLong("app-port"), help: ArgumentHelp("With --server: the loopback port of the simulated apps; 0 picks one (needs --admin-key).", valueName: "port"))
        var appPort: Int = 0

        @Option(help: "Times a link is sent again after a timeout.")
        var resends: Int = 2

        @Flag(help: "Print the report as JSON.")
        var json = false

        func behaviours() throws -> [AppBehaviour] {
            let behaviours = try Self.behaviours(apps, option: "--apps")
            guard !behaviours.isEmpty else { throw ValidationError("--apps is empty. Give behaviours such as --apps conformant,slow.") }
            return behaviours
        }

        func xCallbackBehaviours() throws -> [AppBehaviour] { try Self.behaviours(xCallbackApps, option: "--x-callback-apps") }

        private static func behaviours(_ list: String, option: String) throws -> [AppBehaviour] {
            let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return try names.map { name in
                guard let behaviour = AppBehaviour(rawValue: name.lowercased()) else {
                    throw ValidationError("\(option): '\(name)' is not a behaviour. Use one of: \(AppBehaviour.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                return behaviour
            }
        }

        func validate() throws {
            _ = try behaviours()
            if !(try xCallbackBehaviours()).isEmpty && deviceKey != nil {
                throw ValidationError("--x-callback-apps needs --admin-key with --server: the apps are registered for the run.")
            }
            guard (1...20).contains(timeout) else { throw ValidationError("--timeout must be 1 to 20 seconds; the spec's budget is 20 s.") }
            if server != nil {
                _ = try access()
                guard (0...65535).contains(appPort) else { throw ValidationError("--app-port must be 0 to 65535.") }
                if deviceKey != nil && appPort == 0 {
                    throw ValidationError("--app-port: with --device-key give the port the sim-* apps were registered with.")
                }
            } else if adminKey != nil || deviceKey != nil || deviceID != nil {
                throw ValidationError("--admin-key, --device-key and --device-id need --server.")
            }
            guard (0...10).contains(resends) else { throw ValidationError("--resends must be 0 to 10.") }
        }

        /// How to sign in to `--server`.
        func access() throws -> ServerLogoutSimulation.Access {
            switch (adminKey, deviceKey, deviceID) {
            case (let admin?, nil, nil):
                return .admin(key: admin)
            case (nil, let key?, let id?):
                guard let uuid = UUID(uuidString: id) else { throw ValidationError("--device-id: '\(id)' is not a device id (a UUID).") }
                return .device(id: uuid, key: key)
            default:
                throw ValidationError("--server needs either --admin-key, or --device-key with --device-id.")
            }
        }

        func serverURL() throws -> URL? {
            guard let server else { return nil }
            let text = server.hasSuffix("/") ? String(server.dropLast()) : server
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw ValidationError("--server: '\(server)' is not an http(s) origin such as http://127.0.0.1:8080.")
            }
            return url
        }

        func run() async throws {
            if let url = try serverURL() {
                try await runOnServer(url)
                return
            }
            let started = ContinuousClock.now
            let result = try await LogoutSimulation(behaviours: try behaviours(), xCallbackBehaviours: try xCallbackBehaviours(),
                                                    timeout: .seconds(timeout), resends: resends).run()
            let wall = started.duration(to: .now)
            let wallMilliseconds = wall.components.seconds * 1000 + wall.components.attoseconds / 1_000_000_000_000_000
            if json {
                print(try SimulationJSON(result: result, wallMilliseconds: wallMilliseconds).text())
            } else {
                print("Logout run \(result.report.runID) on a simulated phone (\(result.simulatedMilliseconds) ms simulated, \(wallMilliseconds) ms wall)")
                if result.prompts > 0 { print("  iOS asked the person \(result.prompts) times before opening a custom scheme") }
                let width = max(12, (result.apps.map(\.app.count).max() ?? 0) + 1)
                for app in result.apps {
                    let line = "  \(app.app.padding(toLength: width, withPad: " ", startingAt: 0)) \(app.outcome.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) attempts \(app.attempts)  \(app.durationMilliseconds) ms"
                    print(line + (app.reason.map { "  (\($0))" } ?? ""))
                }
            }
        }
    }
}

extension SimulateCommand.Logout {
    func runOnServer(_ url: URL) async throws {
        let started = ContinuousClock.now
        var simulation = ServerLogoutSimulation(server: url, access: try access(), behaviours: try behaviours(),
                                                timeoutSeconds: timeout, resends: resends, appPort: appPort)
        simulation.otherApps = try xCallbackBehaviours().enumerated().map { index, behaviour in
            ServerLogoutSimulation.OtherApp(name: "sim-x\(index + 1)-\(behaviour.rawValue)", method: .xCallback(behaviour))
        }
        let result: ServerLogoutSimulation.Result
        do {
            result = try await simulation.run()
        } catch let error as SimulatorError {
            throw ValidationError(error.description)
        } catch let error as FleetServerError {
            throw ValidationError(error.description)
        }
        let wall = started.duration(to: .now)
        let wallMilliseconds = wall.components.seconds * 1000 + wall.components.attoseconds / 1_000_000_000_000_000
        if json {
            var output = SimulationJSON(runID: result.report.runID, apps: result.apps, simulatedMilliseconds: wallMilliseconds,
                                        wallMilliseconds: wallMilliseconds, runStatus: result.runStatus, prompts: result.prompts)
            output.apps += result.notPlayed.map(SimulationJSON.App.init(notPlayed:))
            print(try output.text())
        } else {
            print("Logout run \(result.report.runID) on \(url.absoluteString): \(result.runStatus) (\(wallMilliseconds) ms wall)")
            if result.prompts > 0 { print("  iOS asked the person \(result.prompts) times before opening a custom scheme") }
            let width = max(16, ((result.apps.map(\.app) + result.notPlayed.map(\.app)).map(\.count).max() ?? 0) + 1)
            func line(_ app: String, _ outcome: LogoutReport.Outcome, _ attempts: Int, _ milliseconds: Int64, _ notes: [String?]) -> String {
                "  \(app.padding(toLength: width, withPad: " ", startingAt: 0)) \(outcome.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) attempts \(attempts)  \(milliseconds) ms"
                    + notes.compactMap { $0.map { "  (\($0))" } }.joined()
            }
            for app in result.apps {
                print(line(app.app, app.outcome, app.attempts, app.durationMilliseconds, [app.reason]))
            }
            for app in result.notPlayed {
                print(line(app.app, app.outcome, app.attempts, app.durationMilliseconds,
                           [Self.notPlayedNote, app.reason]))
            }
        }
        // The exit status tells a script what the run did on the server (issue 66, item 4).
        guard result.runStatus == "completed" else { throw ExitCode.failure }
    }

    /// How an app of the run the simulated phone does not have is marked.
    static let notPlayedNote = "not played: registered on the server, not on the simulated phone"
}

/// The JSON form of a simulated run.
struct SimulationJSON: Encodable {
    struct App: Encodable {
        var app: String
        /// nil for an app the simulation did not play.
        var behaviour: String?
        /// Whether the simulated phone played it (with --server, the run may hold others).
        var played = true
        var outcome: String
        var attempts: Int
        var duration_ms: Int64
        var reason: String?
    }

    var run_id: String
    var apps: [App]
    var simulated_ms: Int64
    var wall_ms: Int64
    /// With --server: the run's status on the server.
    var run_status: String?
    /// Custom-scheme prompts iOS showed the person (x-callback apps).
    var prompts: Int

    init(result: LogoutSimulation.Result, wallMilliseconds: Int64) {
        self.init(runID: result.report.runID, apps: result.apps, simulatedMilliseconds: result.simulatedMilliseconds,
                  wallMilliseconds: wallMilliseconds, runStatus: nil, prompts: result.prompts)
    }

    init(runID: String, apps results: [LogoutSimulation.AppResult], simulatedMilliseconds: Int64, wallMilliseconds: Int64,
         runStatus: String?, prompts: Int) {
        self.prompts = prompts
        run_id = runID
        run_status = runStatus
        apps = results.map {
            App(app: $0.app, behaviour: $0.behaviour.rawValue, outcome: $0.outcome.rawValue, attempts: $0.attempts,
                duration_ms: $0.durationMilliseconds, reason: $0.reason)
        }
        simulated_ms = simulatedMilliseconds
        wall_ms = wallMilliseconds
    }

    func text() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

extension SimulationJSON.App {
    /// An app of the run the simulation did not play, as the run reported it.
    init(notPlayed entry: LogoutReport.Entry) {
        self.init(app: entry.app, behaviour: nil, played: false, outcome: entry.outcome.rawValue, attempts: entry.attempts,
                  duration_ms: entry.durationMilliseconds, reason: entry.reason)
    }
}
