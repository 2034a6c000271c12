import Benchmark
import SessionWorkload

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(3))

    Benchmark("Access token: full verification (SessionKeyRing, no cache)") { benchmark in
        let workload = try await SessionWorkload.make()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try await workload.verifyAccessToken()) }
    }

    Benchmark("Access token: raw ES256 verify of the same bytes") { benchmark in
        let workload = try await SessionWorkload.make()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(workload.verifyRawES256()) }
    }
}
