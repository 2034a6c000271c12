import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server is killed with SIGKILL in the middle of a stream of callbacks and started again:
/// every callback that got a 2xx must be in the database, and pending deadlines must still fire.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServeCrashTests {
    @Test func everyAcknowledgedCallbackSurvivesASIGKILLAndPendingDeadlinesStillFire() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-crash-\(UUID().uuidString)")
        let first = try await ServerProcess.start(dataDirectory: directory)
        let admin = try #require(first.firstAdminKey)

        let appCount = 30, runCount = 4, deadline = 4
        for index in 0..<appCount {
            let reply = try await first.request("POST", "api/v1/apps", json: [
                "name": "App\(index)", "appIDs": ["ABCDE12345.com.example.app\(index)"],
                "logoutAction": "https://app\(index).example.com/logout", "deadlineSeconds": deadline, "maxReissues": 0,
            ], key: admin)
            #expect(reply.status == 201)
        }
        let device = try await first.request("POST", "api/v1/devices", json: ["name": "crash-phone"], key: admin)
        let deviceID = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
        let deviceKey = try #require(device.json["key"] as? String)
        var callbacks: [(run: String, url: String)] = []
        var runs: [String] = []
        for _ in 0..<runCount {
            let run = try await first.request("POST", "api/v1/devices/\(deviceID)/logout-runs", key: deviceKey)
            let runID = try #require(run.json["id"] as? String)
            runs.append(runID)
            for item in run.json["items"] as? [[String: Any]] ?? [] {
                let link = try #require(item["link"] as? String)
                let encoded = try #require(link.components(separatedBy: "ulc-success=").last?.components(separatedBy: "&").first)
                callbacks.append((runID, try #require(encoded.removingPercentEncoding)))
            }
        }
        #expect(callbacks.count == appCount * runCount)

        // Send callbacks from 8 concurrent clients; kill the server part-way through.
        let acknowledged = LockedText()
        let sent = LockedCounter()
        let killAfter = callbacks.count / 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            let queue = LockedQueue(callbacks.map(\.url))
            for _ in 0..<8 {
                group.addTask {
                    while let url = queue.next() {
                        if sent.increment() == killAfter { first.kill() }
                        guard let reply = try? await first.request("GET", url), (200..<300).contains(reply.status) else { continue }
                        acknowledged.append(url + "\n")
                    }
                }
            }
            try await group.waitForAll()
        }
        let acked = Set(acknowledged.text.split(separator: "\n").map(String.init))

        // Restart on the same data directory.
        let second = try await ServerProcess.start(dataDirectory: directory)
        #expect(second.firstAdminKey == nil)  // the database survived: no new first-start key
        var recorded = 0, lost = 0
        for runID in runs {
            let run = try await second.request("GET", "api/v1/logout-runs/\(runID)", key: admin)
            for item in run.json["items"] as? [[String: Any]] ?? [] {
                let itemID = (item["id"] as? String ?? "").lowercased()
                let wasAcked = acked.contains { $0.contains("/\(runID.lowercased())/\(itemID)/") }
                if item["status"] as? String == "succeeded" { recorded += 1 }
                if wasAcked && item["status"] as? String != "succeeded" { lost += 1 }
            }
        }
        #expect(!acked.isEmpty)
        #expect(lost == 0)

        // Items still pending when the server died time out after the restart (maxReissues 0).
        var pending = Int.max
        let give = Date().addingTimeInterval(Double(deadline) + 15)
        while pending > 0 && Date() < give {
            try await Task.sleep(for: .milliseconds(250))
            pending = 0
            for runID in runs {
                let run = try await second.request("GET", "api/v1/logout-runs/\(runID)", key: admin)
                pending += (run.json["items"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "pending" }.count
            }
        }
        var timedOut = 0
        for runID in runs {
            let run = try await second.request("GET", "api/v1/logout-runs/\(runID)", key: admin)
            timedOut += (run.json["items"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "timed_out" }.count
            #expect(run.json["status"] as? String != "running")
        }
        #expect(pending == 0)
        #expect(recorded + timedOut == callbacks.count)
        print("crash test: \(callbacks.count) callbacks, \(acked.count) acknowledged with 2xx before SIGKILL, \(recorded) recorded after restart, \(lost) lost; \(timedOut) pending deadlines fired after restart")
        #expect(await second.terminate() == 0)
        try? FileManager.default.removeItem(at: directory)
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

final class LockedQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String]
    init(_ items: [String]) { self.items = items.reversed() }
    func next() -> String? { lock.lock(); defer { lock.unlock() }; return items.popLast() }
}
