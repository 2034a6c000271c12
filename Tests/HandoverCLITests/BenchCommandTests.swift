import Foundation
import Testing

/// `handover bench shift-change` end to end, small: it starts its own server, plays the storm
/// through the real HTTP API, and reads every run back.
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
        var runs: Runs
        var callbacks: Callbacks
        var deadlines: Deadlines
        var memory: [Memory]
        var database: String
    }

    @Test func aSmallStormIsPlayedAndEveryCallbackIsFoundRecorded() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("storm-\(UUID().uuidString).json")
        // A temporary directory of its own, to see that a clean storm leaves nothing in it.
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("storm-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: temporary)
        }
        let result = try HandoverBinary.run(["bench", "shift-change", "--devices", "20", "--apps", "3", "--window", "2",
                                             "--stall-rate", "0.2", "--failure-rate", "0.1", "--deadline", "1", "--json", file.path],
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
    }

    /// Against a running server (`--server`) that has other target apps than the storm's (here:
    /// the first storm's), each launcher logs out the storm's apps only. It asked for every
    /// target app once, so a second storm on one server left every run unfinished.
    @Test func aStormOnAServerWithOtherAppsLogsOutItsOwnApps() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storm-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerProcess.start(dataDirectory: folder)
        defer { _ = server.terminate() }
        let key = try #require(server.firstAdminKey)
        for storm in 1...2 {
            let file = folder.appendingPathComponent("storm-\(storm).json")
            let result = try HandoverBinary.run(["bench", "shift-change", "--server", server.baseURL.absoluteString, "--admin-key", key,
                                                 "--devices", "10", "--apps", "2", "--window", "1", "--stall-rate", "0",
                                                 "--failure-rate", "0", "--page-samples", "0", "--json", file.path])
            #expect(result.status == 0, "storm \(storm): \(result.stdout)\n\(result.stderr)")
            let figures = try JSONDecoder().decode(Figures.self, from: Data(contentsOf: file))
            #expect(figures.runs.completed == 10, "storm \(storm)")
            #expect(figures.runs.unfinished == 0, "storm \(storm)")
            #expect(figures.callbacks.recorded == 20, "storm \(storm)")
        }
    }

    @Test func badSharesAndSQLiteInstancesAreRefusedWithWhatIsAccepted() throws {
        let stall = try HandoverBinary.run(["bench", "shift-change", "--stall-rate", "0.9"])
        #expect(stall.status != 0)
        #expect(stall.stderr.contains("--stall-rate must be a share from 0 to 0.5"))
        let instances = try HandoverBinary.run(["bench", "shift-change", "--instances", "2"])
        #expect(instances.status != 0)
        #expect(instances.stderr.contains("needs --database postgres://"))
        let server = try HandoverBinary.run(["bench", "shift-change", "--server", "http://127.0.0.1:1"])
        #expect(server.stderr.contains("--server needs --admin-key"))
    }
}
