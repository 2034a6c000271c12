import ArgumentParser
import DeviceSimulator
import Foundation

/// `handover bench`: load that IT teams can play against a server before a real shift does.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure a Handover server under the load of a real shift change.",
        subcommands: [ShiftChangeCommand.self]
    )
}

/// `handover bench shift-change`: thousands of phones hand over at once.
struct ShiftChangeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shift-change",
        abstract: "Play thousands of launchers checking phones out and handing over at once, and check that every callback is recorded.",
        discussion: """
            At 7 a.m. every shared phone of a hospital hands over within minutes. This plays it: \
            it registers --apps target apps and --devices phones, then each phone's launcher, at a \
            random moment of --window, checks its phone out to a person by badge, starts its \
            logout run through the real HTTP API and answers \
            each app's link as the app would (after 50 to 300 ms), through the device API or, for \
            a fifth of them, the browser fallback page. --stall-rate of the apps ignore their first \
            link: their deadline (--deadline) fires, the server reissues the link, and the launcher \
            answers the new one. --failure-rate answer on their error URL. 1 % of the recorded \
            callbacks are reported twice and must be refused (409). Afterwards every run is read \
            back: a callback acknowledged but not recorded is lost.

            Check-outs: before the hand-over window, as the previous shift's people took their \
            phones hours before, every phone is checked out by badge, 16 docks at once (POST \
            /api/v1/devices/{id}/custody with the device's key and {"badge": "B-<stamp>-00042"}), \
            timed; the storm's runs check the custodies in. With --check-out-in-window each \
            launcher checks its phone out right before its run instead, inside the window. The servers the bench starts look badges up at \
            a badge directory it runs on loopback (--badge-lookup-url http://127.0.0.1:<port>/badges), \
            which names a person of its own for each phone (nurse-<stamp>-00042@bench.example): a \
            person holds one device at a time. A refused check-out is counted and the hand-over \
            goes on. Afterwards the custody records are read back (GET /api/v1/custody from the \
            storm's start, every page): each phone checked out must show its person, checked in \
            by the run its launcher started. --no-check-out plays the storm without check-outs \
            (the baseline to compare with); against --server they are off, since the bench does \
            not control that server's badge lookup. --custody-csv FILE writes the dashboard's \
            custody CSV of the storm's day (every custody checked out since 00:00 UTC) afterwards.

            It prints, and writes with --json: check-outs done and refused, their latency \
            p50/p99/max and the custodies checked in by their runs; runs and callbacks completed, \
            lost, duplicates refused; callback latency p50/p99/max and the recording rate; how late each deadline \
            fired, as the launchers saw it (an upper bound) and by the servers' own record (their \
            /metrics histogram: how many within 1 s); for servers it starts, their \
            memory (RSS) before, at the peak and after the storm; with --dashboards, how many \
            live updates the open dashboards received; and, with the whole fleet in the \
            database, how long the dashboard's pages take (p50/p95 of --page-samples loads: \
            overview, device search, the last page of the device list, scorecards, a run's timeline).

            The server: by default it starts 'handover serve' on a fresh SQLite database in a \
            temporary folder; with --database postgres://… it starts --instances servers on that \
            database (they share it; the phones are split between them); with --server it plays \
            against a running server (give --admin-key; nothing is started and memory is not read). \
            The servers it starts keep their data and logs in a temporary folder, removed after a \
            clean storm and kept (its path printed) after one that is not.

            Examples:
              handover bench shift-change --devices 300 --apps 7 --window 10
              handover bench shift-change --devices 10000 --apps 7 --window 60 --stall-rate 0.05 --dashboards 50 --json storm.json
              handover bench shift-change --database postgres://handover@127.0.0.1:5432/handover --instances 2 --devices 10000
              handover bench shift-change --devices 300 --window 10 --custody-csv custody.csv
              handover bench shift-change --devices 300 --window 10 --no-check-out

            Exit status: 0 when every check-out was done and checked in by its run, every \
            callback was recorded, every run finished and every stalled link was reissued; 1 \
            otherwise (the figures say what went wrong).
            """
    )

    @Option(help: "Phones that hand over, one logout run each.")
    var devices: Int = 1000

    @Option(help: "Target apps every phone logs out.")
    var apps: Int = 7

    @Option(help: ArgumentHelp("Seconds over which the runs start.", valueName: "seconds"))
    var window: Double = 60

    @Option(name: .customLong("stall-rate"), help: ArgumentHelp("Share of apps that ignore their first link (0 to 0.5).", valueName: "share"))
    var stallRate: Double = 0.05

    @Option(name: .customLong("failure-rate"), help: ArgumentHelp("Share of apps that answer on their error URL (0 to 0.5).", valueName: "share"))
    var failureRate: Double = 0.01

    @Option(help: ArgumentHelp("Each app's deadline in seconds before its link is reissued (1 to 20).", valueName: "seconds"))
    var deadline: Int = 5

    @Option(help: ArgumentHelp("HTTP connections per server instance, at most: opened as the launchers need them, as phones each have their own (64 plays the old generator, whose pool queued requests the server never saw).", valueName: "count"))
    var connections: Int = 1024

    @Option(name: .customLong("closed-loop"),
            help: ArgumentHelp("Instead of a storm: this many launchers each hand their own phone over again and again, apps answering at once, and the server's capacity is reported (hand-overs and callbacks a second) with the storm that reaches it: the knee.", valueName: "launchers"))
    var closedLoop: Int?

    @Option(help: ArgumentHelp("With --closed-loop: seconds measured, after --warm-up.", valueName: "seconds"))
    var duration: Double = 30

    @Option(name: .customLong("warm-up"), help: ArgumentHelp("With --closed-loop: seconds played before the measured span.", valueName: "seconds"))
    var warmUp: Double = 5

    @Option(name: .customLong("postgres-pid"),
            help: ArgumentHelp("With --closed-loop and --database: the postmaster's process id (line 1 of postmaster.pid), to count PostgreSQL's CPU beside the servers'.", valueName: "pid"))
    var postgresPID: Int32?

    @Option(help: ArgumentHelp("Dashboards to keep open on the live overview (server-sent events) during the storm.", valueName: "count"))
    var dashboards: Int = 0

    @Option(name: .customLong("page-samples"),
            help: ArgumentHelp("After the storm, load each dashboard page (overview, device search, scorecards, a run's timeline) this many times and report p50/p95 (0: skip).", valueName: "count"))
    var pageSamples: Int = 40

    @Option(help: ArgumentHelp("Seeds the storm's randomness (the same seed plays the same storm).", valueName: "number"))
    var seed: UInt64 = 2026

    @Option(help: ArgumentHelp("A running Handover server to play against, such as http://127.0.0.1:8080.", valueName: "url"))
    var server: String?

    @Option(name: .customLong("admin-key"), help: ArgumentHelp("With --server, or a --database that already has one: an admin key.", valueName: "key"))
    var adminKey: String?

    @Option(help: ArgumentHelp("Start the servers on this PostgreSQL database (postgres://user@host:port/db) instead of SQLite.", valueName: "url"))
    var database: String?

    @Option(help: ArgumentHelp("With --database: how many servers to start on it (1 to 8).", valueName: "count"))
    var instances: Int = 1

    @Option(help: ArgumentHelp("Write the figures as JSON to this file.", valueName: "file"))
    var json: String?

    @Flag(name: .customLong("check-out-in-window"),
          help: "Check each phone out right before its run, inside the window, rather than all of them before it.")
    var checkOutInWindow = false

    @Flag(name: .customLong("no-check-out"),
          help: "Hand over without checking each phone out by badge first (the baseline; always so with --server).")
    var noCheckOut = false

    @Option(name: .customLong("custody-csv"),
            help: ArgumentHelp("After the storm, write the dashboard's custody CSV of the storm's day to this file.", valueName: "file"))
    var custodyCSV: String?

    func validate() throws {
        guard (1...100_000).contains(devices) else { throw ValidationError("--devices must be 1 to 100,000.") }
        guard (1...20).contains(apps) else { throw ValidationError("--apps must be 1 to 20 (a shared phone logs out 5 to 10).") }
        guard window >= 0, window <= 3600 else { throw ValidationError("--window must be 0 to 3,600 seconds.") }
        guard (0...0.5).contains(stallRate) else { throw ValidationError("--stall-rate must be a share from 0 to 0.5, such as 0.05.") }
        guard (0...0.5).contains(failureRate) else { throw ValidationError("--failure-rate must be a share from 0 to 0.5, such as 0.01.") }
        guard (1...20).contains(deadline) else { throw ValidationError("--deadline must be 1 to 20 seconds (the registry's range).") }
        guard (1...4096).contains(connections) else { throw ValidationError("--connections must be 1 to 4,096.") }
        if let closedLoop {
            guard (1...4096).contains(closedLoop) else { throw ValidationError("--closed-loop must be 1 to 4,096 launchers.") }
            guard (1...3600).contains(duration), (0...600).contains(warmUp) else {
                throw ValidationError("--duration must be 1 to 3,600 seconds and --warm-up 0 to 600.")
            }
        }
        guard (1...8).contains(instances) else { throw ValidationError("--instances must be 1 to 8.") }
        guard (0...500).contains(dashboards) else { throw ValidationError("--dashboards must be 0 to 500.") }
        guard (0...1000).contains(pageSamples) else { throw ValidationError("--page-samples must be 0 to 1,000.") }
        if server != nil {
            guard adminKey != nil else { throw ValidationError("--server needs --admin-key: the bench registers its apps and phones.") }
            guard database == nil, instances == 1 else { throw ValidationError("--server plays against a running server: leave out --database and --instances.") }
            _ = try serverURL()
        }
        if let database {
            guard database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") else {
                throw ValidationError("--database: '\(database)' is not a postgres:// URL.")
            }
        } else if instances > 1 {
            throw ValidationError("--instances above 1 needs --database postgres://…: SQLite is one server's own file.")
        }
    }

    func serverURL() throws -> URL? {
        guard let server else { return nil }
        guard let url = URL(string: server.hasSuffix("/") ? String(server.dropLast()) : server),
              ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--server: '\(server)' is not an http(s) origin such as http://127.0.0.1:8080.")
        }
        return url
    }

    func run() async throws {
        // Against a running server the badge lookup is that server's own: the bench's badges would be unknown there.
        let checksOut = !noCheckOut && server == nil
        if server != nil, !noCheckOut {
            say("Check-outs are off: a running server (--server) looks badges up at its own badge lookup, which the bench does not control.")
        } else if noCheckOut {
            say("Check-outs are off (--no-check-out): the phones hand over without being checked out first.")
        }
        // A storm opens a connection per active launcher; the servers started here inherit the limit.
        OpenFileLimit.raise()
        let directory = checksOut ? try await BadgeDirectory.start() : nil
        do {
            try await play(checksOut: checksOut, badgeLookup: directory?.lookupURL)
        } catch {
            try? await directory?.shutdown()
            throw error
        }
        try? await directory?.shutdown()
    }

    /// Starts the servers (their badge lookup at `badgeLookup`), plays the storm and reports it.
    private func play(checksOut: Bool, badgeLookup: URL?) async throws {
        let plan = ShiftChangePlan(devices: closedLoop ?? devices, apps: apps, windowSeconds: window, stallRate: stallRate, failureRate: failureRate,
                                   deadlineSeconds: deadline, connections: connections, seed: seed,
                                   dashboards: dashboards, pageSamples: pageSamples, checksOut: checksOut, checkOutInWindow: checkOutInWindow)
        let started = try startServers(badgeLookup: badgeLookup)
        defer { for server in started.processes { server.stop() } }
        let name = started.processes.isEmpty ? "external" : database == nil ? "sqlite" : "postgres"
        let against = "against \(started.origins.map(\.absoluteString).joined(separator: ", ")) (\(name))"
        say(closedLoop == nil ? "Shift change: \(devices) phones × \(apps) apps over \(Int(window)) s \(against)"
                              : "Capacity: \(plan.devices) phones × \(apps) apps handing over back to back \(against)")
        let bench = ShiftChangeBench(plan: plan, servers: started.origins, adminKey: started.adminKey, databaseName: name)
        let setupStart = ContinuousClock.now
        say("Registering \(apps) apps and \(plan.devices) phones…")
        let fleet = try await bench.register { line in say(line) }
        let setup = setupStart.duration(to: .now)
        try await Task.sleep(for: .seconds(2))  // let the servers settle before "before"
        if let closedLoop {
            try await measureCapacity(bench, fleet: fleet, launchers: closedLoop, servers: started.processes, folder: started.folder)
            return
        }
        let before = started.processes.map { $0.residentMB ?? 0 }
        let peaks = PeakMemory(servers: started.processes)
        let sampler = Task { await peaks.sample() }
        if let badgeLookup { say("Each phone is checked out by badge before its run (badge lookup: \(badgeLookup.absoluteString))") }
        say("Storm: \(devices) runs starting over \(Int(window)) s…")
        let stormStarted = Date()
        var figures = await bench.storm(fleet, setupSeconds: Double(setup.components.seconds) + Double(setup.components.attoseconds) / 1e18) { line in say(line) }
        sampler.cancel()
        try await Task.sleep(for: .seconds(3))
        figures.memory = zip(started.processes, zip(before, peaks.values)).map { server, pair in
            ShiftChangeFigures.Memory(beforeMB: pair.0, peakMB: max(pair.1, pair.0), afterMB: server.residentMB ?? 0)
        }
        say(ShiftChangeReport(figures: figures).text)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(figures).write(to: URL(fileURLWithPath: json))
            say("Figures written to \(json)")
        }
        let csvWritten = await writeCustodyCSV(bench, since: stormStarted)
        guard figures.isClean, csvWritten else {
            if let folder = started.folder { say("The servers' logs and databases are kept for a look: \(folder.path)") }
            throw ExitCode(1)
        }
        // A clean storm leaves nothing behind: its servers stop, their temporary folder goes.
        for server in started.processes { server.stop() }
        if let folder = started.folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Plays the closed loop (`--closed-loop`) and reports the capacity and the knee.
    private func measureCapacity(_ bench: ShiftChangeBench, fleet: ShiftChangeBench.Fleet, launchers: Int, servers: [BenchServerProcess],
                                 folder: URL?) async throws {
        say("Closed loop: \(launchers) launchers hand over again and again, apps answering at once, for \(Int(warmUp)) s + \(Int(duration)) s…")
        let meter = await SpanCost(servers: servers.map(\.process.processIdentifier), postmaster: postgresPID, database: database)
        var figures = await bench.closedLoop(fleet, launchers: launchers, warmUp: .milliseconds(Int(warmUp * 1000)),
                                             duration: .milliseconds(Int(duration * 1000)), edge: { await meter.mark($0) }) { line in say(line) }
        if let cost = await meter.cost() { figures = figures.withCost(cost) }
        say(ShiftChangeReport.closedLoopText(figures, windowSeconds: window))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(figures).write(to: URL(fileURLWithPath: json))
            say("Figures written to \(json)")
        }
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Writes the dashboard's custody CSV to `--custody-csv`, if given; false when it could not.
    private func writeCustodyCSV(_ bench: ShiftChangeBench, since: Date) async -> Bool {
        guard let custodyCSV else { return true }
        do {
            let csv = try await bench.custodyCSV(since: since)
            try Data(csv.utf8).write(to: URL(fileURLWithPath: custodyCSV))
            let rows = max(0, csv.split(whereSeparator: \.isNewline).count - 1)
            say("Custody CSV written to \(custodyCSV) (\(rows) line\(rows == 1 ? "" : "s") after the header)")
            return true
        } catch {
            say("The custody CSV could not be written to \(custodyCSV): \(error)")
            return false
        }
    }

    /// Writes a line at once, also into a file or a pipe (`print` would hold it in a buffer there).
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private struct Started {
        var processes: [BenchServerProcess]
        var origins: [URL]
        var adminKey: String
        /// The temporary folder of the servers it started (their data and logs).
        var folder: URL?
    }

    private func startServers(badgeLookup: URL?) throws -> Started {
        if let url = try serverURL(), let adminKey { return Started(processes: [], origins: [url], adminKey: adminKey, folder: nil) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var processes: [BenchServerProcess] = []
        var key = adminKey
        var environment: [String: String] = [:]
        for index in 0..<instances {
            var arguments = ["--data-dir", folder.appendingPathComponent("data-\(index)").path]
            if let database { arguments += ["--database", database] }
            if let badgeLookup { arguments += ["--badge-lookup-url", badgeLookup.absoluteString] }
            say("Starting server \(index + 1) of \(instances) (log: \(folder.path)/server-\(index).log)…")
            let process = try BenchServerProcess(arguments: arguments, environment: environment,
                                                 log: folder.appendingPathComponent("server-\(index).log"))
            if index == 0, let key = try? String(contentsOf: folder.appendingPathComponent("data-0/token-encryption.key"), encoding: .utf8) {
                // Instances that share a database share its encryption key (the first one's).
                environment["HANDOVER_TOKEN_ENCRYPTION_KEY"] = key.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            processes.append(process)
            key = key ?? process.adminKey
        }
        guard let key else {
            for process in processes { process.stop() }
            try? FileManager.default.removeItem(at: folder)
            throw ValidationError("--database: this database already has an admin key, which is shown only at its first start. Give it with --admin-key.")
        }
        return Started(processes: processes, origins: processes.map(\.origin), adminKey: key, folder: folder)
    }
}

/// The highest resident memory of each server while the storm runs, read every 250 ms.
final class PeakMemory: @unchecked Sendable {
    private let servers: [BenchServerProcess]
    private let lock = NSLock()
    private var peaks: [Double]

    init(servers: [BenchServerProcess]) {
        self.servers = servers
        peaks = servers.map { _ in 0 }
    }

    var values: [Double] { lock.withLock { peaks } }

    func sample() async {
        while !Task.isCancelled {
            let now = servers.map { $0.residentMB ?? 0 }
            lock.withLock { peaks = zip(peaks, now).map { max($0, $1) } }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }
}
