import AppleWorkload
import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(3))
    // One iteration = one identity-token verification with the key cached (every check).
    Benchmark("AppleSignIn IdentityTokenVerifier, key cached") { benchmark in
        guard let workload = try? await AppleWorkload.make() else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try? await workload.verifyWithAppleSignIn()) }
    }
    // The same token through jwt-kit's JWTKeyCollection + AppleIdentityToken (vapor/jwt's Apple path).
    Benchmark("jwt-kit JWTKeyCollection + AppleIdentityToken, key cached") { benchmark in
        guard let workload = try? await AppleWorkload.make() else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try? await workload.verifyWithJWTKit()) }
    }
}
