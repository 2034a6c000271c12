// Complete out-of-band operations per second against a running `handover serve`, and the
// server's memory per pending operation (used by scripts/bench-oob.sh).
//
//   oob-bench BASE_URL ADMIN_KEY SERVER_PID DATA_DIR [SECONDS] [CONCURRENCY] [PENDING]
//
// One complete operation: POST /api/v1/operations (authentication, dispatched by link), read
// the link, open the sealed payload with the phone's X25519 key, sign the answer with its P-256
// key (the number the web page shows), POST it to the redeem URL, and see `succeeded`.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import OutOfBand

let arguments = CommandLine.arguments
guard arguments.count >= 5 else {
    FileHandle.standardError.write(Data("usage: oob-bench BASE_URL ADMIN_KEY SERVER_PID DATA_DIR [SECONDS] [CONCURRENCY] [PENDING]\n".utf8))
    exit(2)
}
let base = arguments[1]
let adminKey = arguments[2]
let serverPID = arguments[3]
let dataDirectory = arguments[4]
let seconds = arguments.count > 5 ? Double(arguments[5]) ?? 10 : 10
let concurrency = arguments.count > 6 ? Int(arguments[6]) ?? 8 : 8
let pendingCount = arguments.count > 7 ? Int(arguments[7]) ?? 2000 : 2000

struct BenchFailure: Error, CustomStringConvertible { var description: String }

let client = HTTPClient(eventLoopGroupProvider: .singleton,
                        configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)))

func post(_ path: String, _ body: Data, key: String? = adminKey) async throws -> (Int, [String: Any]) {
    var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : base + path)
    request.method = .POST
    if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(data: body))
    let response = try await client.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any]) ?? [:]
    return (Int(response.status.code), json)
}

func createOperation(_ body: [String: Any]) async throws -> [String: Any] {
    let (status, json) = try await post("/api/v1/operations", try JSONSerialization.data(withJSONObject: body))
    guard status == 201 else { throw BenchFailure(description: "create: HTTP \(status) \(json)") }
    return json
}

/// A phone: its keys, enrolled for its own user.
struct Phone {
    let user: String
    let keys = DeviceKeys.generate()
    var deviceID: String { keys.publicKeys.fingerprint }

    func answer(_ operation: [String: Any], decision: OperationDecision = .approve) async throws {
        guard let text = (operation["dispatch"] as? [String: Any])?["link"] as? String else { throw BenchFailure(description: "no link") }
        let envelope = try OperationLink(parsing: text).payload.open(with: keys)
        let answer = OperationAnswer(envelope: envelope, deviceID: deviceID, decision: decision, number: operation["number"] as? Int,
                                     keys: envelope.type == .registration ? keys.publicKeys : nil)
        let (status, json) = try await post(envelope.redeemURL.absoluteString, try RedeemRequest(signing: answer, with: keys).json(), key: nil)
        guard status == 200, json["status"] as? String == "succeeded" else { throw BenchFailure(description: "redeem: HTTP \(status) \(json)") }
    }

    func enroll() async throws {
        try await answer(try await createOperation(["type": "registration", "user": user, "dispatcher": "link"]))
    }

    func completeOne() async throws {
        try await answer(try await createOperation(["type": "authentication", "user": user, "dispatcher": "link"]))
    }
}

func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(serverPID)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
}

func databaseBytes() -> Int {
    ["handover.sqlite", "handover.sqlite-wal"].reduce(0) { total, name in
        let size = (try? FileManager.default.attributesOfItem(atPath: dataDirectory + "/" + name)[.size] as? Int) ?? 0
        return total + (size ?? 0)
    }
}

do {
    let phones = (0..<concurrency).map { Phone(user: "bench-\($0)-\(UUID().uuidString.prefix(6))") }
    for phone in phones { try await phone.enroll() }

    // Warm-up, then the timed window.
    try await withThrowingTaskGroup(of: Void.self) { group in
        for phone in phones { group.addTask { for _ in 0..<10 { try await phone.completeOne() } } }
        try await group.waitForAll()
    }
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    let started = clock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for phone in phones {
            group.addTask {
                var own: [Double] = []
                while clock.now < deadline {
                    let begin = clock.now
                    try await phone.completeOne()
                    let elapsed = begin.duration(to: clock.now)
                    own.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                }
                return own
            }
        }
        var all: [Double] = []
        for try await own in group { all += own }
        return all.sorted()
    }
    let elapsed = started.duration(to: clock.now)
    let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
    print("complete_operations \(latencies.count)")
    print("complete_operations_per_s \(Int(Double(latencies.count) / elapsedSeconds))")
    print(String(format: "latency_ms p50 %.1f p99 %.1f", percentile(0.5), percentile(0.99)))

    // Memory per pending operation: create many and leave them unanswered (600 s expiry).
    let rssBefore = residentBytes()
    let dbBefore = databaseBytes()
    let perPhone = max(1, pendingCount / phones.count)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for phone in phones {
            group.addTask {
                for _ in 0..<perPhone {
                    _ = try await createOperation(["type": "authentication", "user": phone.user, "dispatcher": "link", "expiresIn": 600])
                }
            }
        }
        try await group.waitForAll()
    }
    let created = perPhone * phones.count
    let rssAfter = residentBytes()
    let dbAfter = databaseBytes()
    print("pending_operations \(created)")
    print("server_rss_bytes_before \(rssBefore) after \(rssAfter)")
    print("server_rss_bytes_per_pending \((rssAfter - rssBefore) / created)")
    print("database_bytes_per_pending \((dbAfter - dbBefore) / created)")
    try await client.shutdown()
} catch {
    FileHandle.standardError.write(Data("oob-bench: \(error)\n".utf8))
    try? await client.shutdown()
    exit(1)
}
