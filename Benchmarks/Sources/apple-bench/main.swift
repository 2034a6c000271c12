// Times identity-token verification, one thread, key cached: AppleSignIn's IdentityTokenVerifier
// and jwt-kit's JWTKeyCollection + AppleIdentityToken. Prints verifications/s (used by
// scripts/bench-apple.sh). Optional argument: seconds per measurement (default 5).
import AppleWorkload
import Foundation

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 5
let workload = try await AppleWorkload.make()
_ = try await workload.verifyWithAppleSignIn()
_ = try await workload.verifyWithJWTKit()

func measure(_ name: String, _ body: () async throws -> String) async throws -> Double {
    for _ in 0..<200 { _ = try await body() } // warm up
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while true {
        for _ in 0..<100 { _ = try await body() }
        count += 100
        let elapsed = clock.now - start
        if elapsed >= .seconds(seconds) {
            let perSecond = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            print("\(name) \(Int(perSecond))")
            return perSecond
        }
    }
}

// APPLE_BENCH_ONLY=applesignin|jwtkit measures one path (for profiling).
let only = ProcessInfo.processInfo.environment["APPLE_BENCH_ONLY"]
if only == nil || only == "applesignin" {
    _ = try await measure("applesignin_verifications_per_s", workload.verifyWithAppleSignIn)
}
if only == nil || only == "jwtkit" {
    _ = try await measure("jwtkit_apple_verifications_per_s", workload.verifyWithJWTKit)
}
