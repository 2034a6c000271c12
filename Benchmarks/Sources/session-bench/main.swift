// Times access-token verification (SessionTokens, every check, no cache) against a bare ES256
// signature verify of the same bytes, one thread, and prints both per second and their ratio
// (used by scripts/bench-sessions.sh). Optional argument: seconds per measurement (default 5).
// The two are measured in alternating half-second slices, so outside load falls on both alike.
import Foundation
import SessionWorkload

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 5
let workload = try await SessionWorkload.make()
precondition(workload.verifyRawES256())
_ = try await workload.verifyAccessToken()

func slice(_ body: () async throws -> Void, _ slice: Double) async throws -> (Int, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while true {
        for _ in 0..<50 { try await body() }
        count += 50
        let elapsed = clock.now - start
        let taken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if taken >= slice { return (count, taken) }
    }
}

let raw: () async throws -> Void = { _ = workload.verifyRawES256() }
let full: () async throws -> Void = { _ = try await workload.verifyAccessToken() }
_ = try await slice(raw, 0.3)
_ = try await slice(full, 0.3)
var rawTotal = (0, 0.0), fullTotal = (0, 0.0)
for _ in 0..<max(1, Int(seconds / 0.5)) {
    let r = try await slice(raw, 0.5)
    rawTotal = (rawTotal.0 + r.0, rawTotal.1 + r.1)
    let f = try await slice(full, 0.5)
    fullTotal = (fullTotal.0 + f.0, fullTotal.1 + f.1)
}
let rawRate = Double(rawTotal.0) / rawTotal.1, fullRate = Double(fullTotal.0) / fullTotal.1
print("raw_es256_verifications_per_s \(Int(rawRate))")
print("access_token_verifications_per_s \(Int(fullRate))")
print("ratio_access_token_to_raw \(String(format: "%.2f", fullRate / rawRate))")
