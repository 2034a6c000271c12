// Times access-token verification (SessionTokens, every check, no cache) against a bare ES256
// signature verify of the same bytes, one thread, and prints both per second and their ratio
// (used by scripts/bench-sessions.sh). Optional argument: seconds per measurement (default 5).
import Foundation
import SessionWorkload

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 5
let workload = try await SessionWorkload.make()
precondition(workload.verifyRawES256())
_ = try await workload.verifyAccessToken()

func measure(_ name: String, _ body: () async throws -> Void) async throws -> Double {
    for _ in 0..<200 { try await body() }
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while true {
        for _ in 0..<100 { try await body() }
        count += 100
        let elapsed = clock.now - start
        if elapsed >= .seconds(seconds) {
            let perSecond = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            print("\(name) \(Int(perSecond))")
            return perSecond
        }
    }
}

let raw = try await measure("raw_es256_verifications_per_s") { _ = workload.verifyRawES256() }
let full = try await measure("access_token_verifications_per_s") { _ = try await workload.verifyAccessToken() }
print("ratio_access_token_to_raw \(String(format: "%.2f", full / raw))")
