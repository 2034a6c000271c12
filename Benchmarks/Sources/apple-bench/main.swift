// Times identity-token verification, one thread, key cached: AppleSignIn's IdentityTokenVerifier
// and jwt-kit's JWTKeyCollection + AppleIdentityToken. Prints verifications/s (used by
// scripts/bench-apple.sh). Optional argument: seconds per measurement (default 5).
//
// The two paths are measured in alternating half-second slices, so that load from elsewhere on a
// shared machine falls on both alike.
import AppleWorkload
import Foundation

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 5
let workload = try await AppleWorkload.make()
_ = try await workload.verifyWithAppleSignIn()
_ = try await workload.verifyWithJWTKit()

/// Runs `body` for about `slice` seconds; returns (calls, seconds taken).
func slice(_ body: () async throws -> String, _ slice: Double) async throws -> (Int, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while true {
        for _ in 0..<50 { _ = try await body() }
        count += 50
        let elapsed = clock.now - start
        let secondsTaken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if secondsTaken >= slice { return (count, secondsTaken) }
    }
}

// APPLE_BENCH_ONLY=applesignin|jwtkit measures one path (for profiling).
let only = ProcessInfo.processInfo.environment["APPLE_BENCH_ONLY"]
var paths: [(String, () async throws -> String)] = []
if only == nil || only == "applesignin" { paths.append(("applesignin_verifications_per_s", workload.verifyWithAppleSignIn)) }
if only == nil || only == "jwtkit" { paths.append(("jwtkit_apple_verifications_per_s", workload.verifyWithJWTKit)) }
for (_, body) in paths { _ = try await slice(body, 0.3) } // warm up
var totals = Array(repeating: (calls: 0, seconds: 0.0), count: paths.count)
for _ in 0..<max(1, Int(seconds / 0.5)) {
    for (index, path) in paths.enumerated() {
        let (calls, taken) = try await slice(path.1, 0.5)
        totals[index].calls += calls
        totals[index].seconds += taken
    }
}
for (index, path) in paths.enumerated() {
    print("\(path.0) \(Int(Double(totals[index].calls) / totals[index].seconds))")
}
