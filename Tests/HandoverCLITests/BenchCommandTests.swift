import Foundation
import Testing

/// `handover bench shift-change` end to end, small: it starts its own server (and its badge
/// directory), checks each phone out by badge, plays the storm through the real HTTP API, and
/// reads every run and every custody back.
@Suite(.timeLimit(.minutes(5))) struct BenchCommandTests {
    struct Figures: Decodable {
        struct Runs: Decodable { var started: Int; var completed: Int; var failed: Int; var unfinished: Int }
        struct Latency: Decodable { var count: Int; var p50: Double; var p99: Double; var max: Double }
        struct Callbacks: Decodable {
            var acknowledged: Int
            var recorded: Int
            var lost: Int
            var viaBrowser: Int
            var duplicatesRefused: Int
            var duplicatesAccepted: Int
            var latency: Latency
        }
        struct Deadlines: Decodable { var fired: Int; var missed: Int; var lateness: Latency }
        struct Memory: Decodable { var beforeMB: Double; var peakMB: Double; var afterMB: Double }
        struct CheckOuts: Decodable { var done: Int; var refused: Int; var latency: Latency; var recorded: Int; var unmatched: Int }
        var runs: Runs
        var checkOuts: CheckOuts?
        var callbacks: Callbacks
        var deadlines: Deadlines
        var memory: [Memory]
        var database: String
    }

    @Test func aSmallStormIsPlayedAndEveryCallbackIsFoundRecorded() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("storm-\(UUID().uuidString).json")
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("storm-\(UUID().uuidString).csv")
        // A temporary directory of its own, to see that a clean storm leaves nothing in it.
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("storm-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: csv)
            try? FileManager.default.removeItem(at: temporary)
        }
        let result = try await HandoverBinary.run(["bench", "shift-change", "--devices", "20", "--apps", "3", "--window", "2",
                                             "--stall-rate", "0.2", "--failure-rate", "0.1", "--deadline", "1", "--json", file.path,
                                             "--custody-csv", csv.path],
                                            environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "the servers' folder is removed")
        #expect(result.stdout.contains("every hand-over recorded"))
        let figures = try JSONDecoder().decode(Figures.self, from: Data(contentsOf: file))
        #expect(figures.database == "sqlite")
        #expect(figures.runs.started == 20)
        #expect(figures.runs.completed + figures.runs.failed == 20)
        #expect(figures.runs.failed > 0)  // the seed's failures answered on their error URL
        #expect(figures.callbacks.acknowledged == 60)
        #expect(figures.callbacks.recorded == 60)
        #expect(figures.callbacks.lost == 0)
        #expect(figures.callbacks.latency.count >= 60)
        #expect(figures.deadlines.fired > 0)
        #expect(figures.deadlines.missed == 0)
        #expect(figures.deadlines.lateness.count == figures.deadlines.fired)
        #expect(figures.memory.count == 1)
        #expect(figures.memory.first.map { $0.beforeMB > 0 && $0.peakMB >= $0.beforeMB } == true)
        // Each phone was checked out by badge before its run, and its run checked the custody in.
        let checkOuts = try #require(figures.checkOuts)
        #expect(checkOuts.done == 20 && checkOuts.refused == 0, "\(result.stdout)")
        #expect(checkOuts.latency.count == 20 && checkOuts.latency.p50 > 0)
        #expect(checkOuts.recorded == 20 && checkOuts.unmatched == 0)
        #expect(result.stdout.contains("check-outs 20 done, 0 refused; 20 custodies checked in by their runs"))
        // The dashboard's custody CSV of the day: one row per phone, its person, its run and how it ended.
        let rows = try String(contentsOf: csv, encoding: .utf8).split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.first?.prefix(11).joined(separator: ",") == "device,deviceID,site,person,email,userID,checkedOutBy,checkedOutAt,checkedInAt,runID,outcome")
        #expect(rows.count == 21)
        for row in rows.dropFirst() {
            #expect(row.count >= 11 && row[4].hasSuffix("@bench.example") && row[6] == "badge" && !row[8].isEmpty && !row[9].isEmpty
                        && ["completed", "failed"].contains(row[10]), "\(row)")
        }
    }

    /// Against a running server (`--server`) that has other target apps than the storm's (here:
    /// the first storm's), each launcher logs out the storm's apps only. It asked for every
    /// target app once, so a second storm on one server left every run unfinished.
    @Test func aStormOnAServerWithOtherAppsLogsOutItsOwnApps() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storm-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess.start(dataDirectory: folder)
        defer { server.terminateInBackground() }
        let key = try #require(server.firstAdminKey)
        for storm in 1...2 {
            let file = folder.appendingPathComponent("storm-\(storm).json")
            let result = try await HandoverBinary.run(["bench", "shift-change", "--server", server.baseURL.absoluteString, "--admin-key", key,
                                                 "--devices", "10", "--apps", "2", "--window", "1", "--stall-rate", "0",
                                                 "--failure-rate", "0", "--page-samples", "0", "--json", file.path])
            #expect(result.status == 0, "storm \(storm): \(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("Check-outs are off: a running server (--server) looks badges up at its own badge lookup"))
            let figures = try JSONDecoder().decode(Figures.self, from: Data(contentsOf: file))
            #expect(figures.checkOuts == nil, "storm \(storm)")
            #expect(figures.runs.completed == 10, "storm \(storm)")
            #expect(figures.runs.unfinished == 0, "storm \(storm)")
            #expect(figures.callbacks.recorded == 20, "storm \(storm)")
        }
    }

    @Test func badSharesAndSQLiteInstancesAreRefusedWithWhatIsAccepted() async throws {
        let stall = try await HandoverBinary.run(["bench", "shift-change", "--stall-rate", "0.9"])
        #expect(stall.status != 0)
        #expect(stall.stderr.contains("--stall-rate must be a share from 0 to 0.5"))
        let instances = try await HandoverBinary.run(["bench", "shift-change", "--instances", "2"])
        #expect(instances.status != 0)
        #expect(instances.stderr.contains("needs --database postgres://"))
        let server = try await HandoverBinary.run(["bench", "shift-change", "--server", "http://127.0.0.1:1"])
        #expect(server.stderr.contains("--server needs --admin-key"))
    }

    /// `--closed-loop`: launchers hand over again and again; the capacity, the knee and (on
    /// Linux) the CPU of the span come back.
    @Test func aClosedLoopReportsTheCapacityAndTheKnee() async throws {
        struct Loop: Decodable {
            struct Cost: Decodable { var handoverCPUSeconds: Double; var cpuSecondsPer1000HandOvers: Double; var postgresCPUSeconds: Double? }
            var launchers: Int
            var handOvers: Int
            var handOversPerSecond: Double
            var callbacksPerSecond: Double
            var cost: Cost?
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await HandoverBinary.run(["bench", "shift-change", "--closed-loop", "8", "--apps", "3", "--duration", "3",
                                                   "--warm-up", "1", "--window", "60", "--stall-rate", "0", "--failure-rate", "0",
                                                   "--json", file.path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Closed loop: 8 launchers"))
        #expect(result.stdout.contains("phones over 60 s"), "the knee")
        let loop = try JSONDecoder().decode(Loop.self, from: Data(contentsOf: file))
        #expect(loop.launchers == 8)
        #expect(loop.handOvers > 0)
        #expect(abs(loop.callbacksPerSecond - 3 * loop.handOversPerSecond) <= loop.callbacksPerSecond * 0.5 + 3,
                "three apps a hand-over: \(loop.callbacksPerSecond) against \(loop.handOversPerSecond)")
        #if os(Linux)
        let cost = try #require(loop.cost)
        #expect(cost.handoverCPUSeconds > 0)
        #expect(cost.cpuSecondsPer1000HandOvers > 0)
        #expect(cost.postgresCPUSeconds == nil, "SQLite")
        #endif
        let wrong = try await HandoverBinary.run(["bench", "shift-change", "--closed-loop", "0"])
        #expect(wrong.stderr.contains("--closed-loop must be 1 to 4,096"))
    }
}
