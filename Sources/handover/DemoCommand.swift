import ArgumentParser
import DeviceSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HandoverClient
import HandoverConfiguration
import HandoverServer
import Logging

/// `handover demo`: the whole product in one command, with nothing to set up.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Play a shift handover on a simulated phone against a real Handover server, and print the report.",
        discussion: """
            No iPhone and no set-up needed. The demo:
              1. starts `handover serve` in this process, on a free port, with a temporary SQLite database;
              2. registers seven simulated ULC apps (one per behaviour), a launcher and a device;
              3. adds two apps without ULC: sim-pager, logged out by an x-callback-url (iOS asks for a tap
                 before opening a custom scheme; the simulated phone counts the prompt), and sim-rota,
                 backend-only (nothing opens on the phone; its backend ends the session);
                 then signs the shift's user in to three apps on the phone (an email link, which the server
                 drops into a folder instead of mailing, then OpenID Connect Native SSO), after giving each
                 app's backend a back-channel logout URI: sim-conformant's and sim-rota's backend is up and
                 takes the logout tokens; sim-flaky's backend is down, so its token is retried and then
                 shown as failed;
              4. plays a shift handover through the real HTTP API: the server issues the links and keeps
                 the 20 s deadlines, the simulated phone's launcher opens them and reports each callback,
                 and the server posts a logout token to each backend;
              5. prints one line per app as it finishes, then the run report with both sides of each app
                 (the device's ULC answer and the backend's), and, with --keep-running, the dashboard URL.
            It exits 0 when every app and backend ends as predicted, 1 otherwise.

            Behaviours and the outcome each must get:
              conformant  logs out in 1 s and calls back                 -> succeeded
              slow        takes 30 s, longer than the 20 s budget         -> timed_out after every resend
              silent      never calls back                                -> timed_out after every resend
              flaky       fails once (retryable); its receiver retries    -> succeeded
              failing     fails for good; opens the error URL             -> failed
              premature   calls back before its logout is done            -> failed (still signed in)
              killed      force-quit just before the link; cold-started   -> succeeded

            Time runs --speed times faster than real time on the server and the phone alike (10 by \
            default), so the 60 s a silent app takes to fail (three 20 s deadlines) passes in 6 s. \
            Every time printed is in that demo time.

            With --keep-running the server stays up after the report: open the dashboard URL, sign in \
            with the admin key it prints, and press Enter here to play another handover and watch it \
            live. The tester (/tester) can drive simulated apps too. Stop with Ctrl-C.

            Examples:
              handover demo
              handover demo --keep-running --port 8080
              handover demo --speed 1          # real time: about a minute and a half
            """
    )

    @Flag(help: "Leave the server up after the report, so the dashboard can be opened; Enter plays another handover.")
    var keepRunning = false

    @Option(help: ArgumentHelp("Port for the server; 0 picks a free one.", valueName: "port"))
    var port: Int = 0

    @Option(help: ArgumentHelp("How many times faster than real time the demo runs, 1 to 100.", valueName: "n"))
    var speed: Int = 10

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port: \(port) is not a port. Accepted: 0 to 65535.") }
        if !(1...100).contains(speed) { throw ValidationError("--speed: \(speed) is out of range. Accepted: 1 (real time) to 100.") }
    }

    func run() async throws {
        ServerLogging.bootstrap(defaultLevel: .error)  // the down backend's failures are shown as progress lines
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.dataDirectory = folder
        configuration.developerMode = true
        configuration.schedulerInterval = .milliseconds(50)
        configuration.mailDropDirectory = folder.appendingPathComponent("mail")
        configuration.allowsPrivateWebhookTargets = true  // the demo's backends listen on loopback
        configuration.backChannelLogoutAttempts = 4       // 2 + 4 + 8 s of back-off before "failed"
        let testerPhone = SimulatedTesterPhone(speed: speed)
        let backends = try await DemoBackends.start()
        let server: HandoverServer
        do {
            server = try await HandoverServer.start(configuration, clock: ScaledServerClock(speed: speed),
                                                    logger: Logger(label: "handover-demo"), testerSimulator: testerPhone)
        } catch {
            await testerPhone.phone.shutdown()
            await backends.shutdown()
            throw error
        }
        let adminKey = try await server.createAPIKey(name: "demo admin", scope: .admin)
        say("Handover demo: server on \(server.baseURL.absoluteString), SQLite in \(folder.path)")
        say("Time runs \(speed)x faster than real time; times below are demo time.")
        say("Backends: \(DemoBackends.upApp)'s at \(backends.uris[DemoBackends.upApp]!.absoluteString) (up), \(DemoBackends.downApp)'s at \(backends.downURL.absoluteString) (down).")
        let passed = await playHandover(on: server, adminKey: adminKey, backends: backends, mailDrop: configuration.mailDropDirectory!, number: 1)
        say("")
        if !keepRunning {
            // The server stops with the demo: no address to open.
            say("The demo's server stops now. Run `handover demo --keep-running` to open its dashboard and watch another handover live.")
        }
        if keepRunning {
            say("Dashboard: \(server.baseURL.absoluteString)/dashboard   (sign in with the admin key below)")
            say("Tester:    \(server.baseURL.absoluteString)/tester")
            say("Admin key: \(adminKey)")
            say("")
            say("The server stays up. Press Enter to play another handover (watch it on the dashboard); Ctrl-C stops.")
            let replays = Task { await replayOnEnter(server: server, adminKey: adminKey, backends: backends, mailDrop: configuration.mailDropDirectory!) }
            try await ShutdownSignal.wait()
            replays.cancel()
            say("Stop signal received; shutting down.")
        }
        try await server.shutdown()
        await testerPhone.phone.shutdown()
        await backends.shutdown()
        if !passed { throw ExitCode(1) }
    }

    /// Reads lines from standard input; each one plays another handover. Ends at end of input.
    private func replayOnEnter(server: HandoverServer, adminKey: String, backends: DemoBackends, mailDrop: URL) async {
        var number = 2
        while !Task.isCancelled, await Self.readLine() != nil {
            _ = await playHandover(on: server, adminKey: adminKey, backends: backends, mailDrop: mailDrop, number: number)
            number += 1
            say("Press Enter for another handover; Ctrl-C stops.")
        }
    }

    private static func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Swift.readLine()) }
        }
    }

    /// Plays one handover with every behaviour and prints progress and the report; returns
    /// whether every app and backend ended as expected.
    private func playHandover(on server: HandoverServer, adminKey: String, backends: DemoBackends, mailDrop: URL, number: Int) async -> Bool {
        let behaviours = AppBehaviour.allCases
        let email = "shift\(number)@hospital.example"
        say("")
        say("Handover \(number): \(email) signs in to \(DemoBackends.upApp) (email link) and \(DemoBackends.downApp) (Native SSO);")
        say("then the shared phone logs \(behaviours.count) apps out…")
        let finished = Counter()
        var simulation = ServerLogoutSimulation(server: server.baseURL, access: .admin(key: adminKey), behaviours: behaviours,
                                                timeoutSeconds: 20, resends: 2, pollInterval: .milliseconds(500))
        simulation.otherApps = [.init(name: DemoBackends.xCallbackApp, method: .xCallback(.conformant)),
                                .init(name: DemoBackends.backendOnlyApp, method: .backendOnly(backchannelLogoutURI: backends.liveURL))]
        simulation.signedInUser = .init(email: email, mailDrop: mailDrop, backends: backends.uris)
        let total = behaviours.count + simulation.otherApps.count
        let methods = Dictionary(uniqueKeysWithValues: simulation.otherApps.map { ($0.name, $0.methodName) })
        simulation.progress = { app in
            let done = await finished.increment()
            let mark = app.outcome == app.behaviour.expectedOutcome ? "ok" : "UNEXPECTED"
            say("  [\(done)/\(total)] \(Self.pad(app.app, 16)) \(Self.pad(app.outcome.rawValue, 10)) after \(Self.seconds(app.durationMilliseconds)), attempts \(app.attempts)  \(mark)")
        }
        simulation.backendProgress = { app, backend in
            say("  backend of \(Self.pad(app, 16)) \(DemoBackends.describe(backend))")
        }
        let alreadyReceived = backends.receivedTokens().count
        let result: ServerLogoutSimulation.Result
        do {
            result = try await simulation.run(time: .running(SpedUpClock(speed: speed)))
        } catch {
            say("The handover could not be played: \(error)")
            return false
        }
        say("")
        say("Run \(result.report.runID): \(result.runStatus)")
        say("  \(Self.pad("app", 16)) \(Self.pad("method", 12)) \(Self.pad("behaviour", 11)) \(Self.pad("outcome", 10)) \(Self.pad("expected", 10)) attempts  \(Self.pad("time", 7)) backend (back-channel logout)")
        var allExpected = true
        for app in result.apps {
            let expected = app.behaviour.expectedOutcome
            let backend = result.backends[app.app]
            let backendExpected = DemoBackends.expected(app.app)
            let asExpected = app.outcome == expected && backend?.state == backendExpected
            if !asExpected { allExpected = false }
            say("  \(Self.pad(app.app, 16)) \(Self.pad(methods[app.app] ?? "ULC", 12)) \(Self.pad(methods[app.app] == "backend-only" ? "-" : app.behaviour.rawValue, 11)) \(Self.pad(app.outcome.rawValue, 10)) \(Self.pad(expected.rawValue, 10)) \(Self.pad(String(app.attempts), 8))  \(Self.pad(Self.seconds(app.durationMilliseconds), 7)) \(backend.map(DemoBackends.describe) ?? "-")\(asExpected ? "" : "   <- not as expected")")
        }
        if result.apps.count != total { allExpected = false }
        say("iOS asked \(result.prompts) time\(result.prompts == 1 ? "" : "s") before opening a custom scheme (the x-callback app needs a tap).")
        if result.prompts != 1 { allExpected = false }
        let tokens = backends.receivedTokens().dropFirst(alreadyReceived).filter { $0.audience == "com.example.\(DemoBackends.upApp)" }
        let signedIn = result.sessions[DemoBackends.upApp]
        if let token = tokens.first, tokens.count == 1, token.sid == signedIn, token.isBackChannelLogout {
            say("\(DemoBackends.upApp)'s backend received one logout token: aud \(token.audience ?? "?"), sid \(token.sid ?? "?") (the session signed in before the handover).")
        } else {
            say("\(DemoBackends.upApp)'s backend received \(tokens.count) logout token(s); expected one for session \(signedIn ?? "?").")
            allExpected = false
        }
        if let custody = await Self.custody(of: result.report.runID, server: server.baseURL, adminKey: adminKey) {
            say(custody)
        } else {
            say("No custody names this run; expected \(email)'s, checked in by the hand-over.")
            allExpected = false
        }
        for line in await DemoProof.lines(run: result.report.runID, server: server.baseURL, adminKey: adminKey) { say(line) }
        if allExpected {
            say(result.runStatus == "failed"
                ? "Every app and backend ended as predicted. The run failed as predicted too: the demo plays apps that time out and "
                    + "answer errors, so the phone left service until a person checks it (the dashboard's queue)."
                : "Every app and backend ended as predicted.")
        } else {
            say("Some apps or backends did not end as expected.")
        }
        return allExpected
    }

    /// Who held the phone until this hand-over, as `GET /api/v1/custody` reports it.
    private static func custody(of run: String, server: URL, adminKey: String) async -> String? {
        struct Page: Decodable {
            struct Row: Decodable {
                var deviceName: String
                var personEmail: String?
                var personName: String?
                var checkedOutAt: Date
                var checkedInAt: Date?
                var runID: String?
                var runStatus: String?
                var appsLeftSignedIn: [String]
            }
            var custodies: [Row]
        }
        var request = URLRequest(url: server.appendingPathComponent("api/v1/custody"))
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        guard let (data, _) = try? await URLSession.shared.data(for: request) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let row = (try? decoder.decode(Page.self, from: data))?.custodies.first(where: { $0.runID?.lowercased() == run.lowercased() }), let checkedIn = row.checkedInAt
        else { return nil }
        let held = Int(checkedIn.timeIntervalSince(row.checkedOutAt).rounded())
        let left = row.appsLeftSignedIn.isEmpty ? "every app signed out" : "still signed in: \(row.appsLeftSignedIn.joined(separator: ", "))"
        return "Custody: \(row.personName ?? row.personEmail ?? "a person") held \(row.deviceName) for \(held) s, checked in by this hand-over "
            + "(\(row.runStatus ?? "?"); \(left))."
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func seconds(_ milliseconds: Int64) -> String {
        String(format: "%.1f s", Double(milliseconds) / 1000)
    }
}

/// Counts finished apps across concurrent progress calls.
private actor Counter {
    private var value = 0
    func increment() -> Int {
        value += 1
        return value
    }
}
