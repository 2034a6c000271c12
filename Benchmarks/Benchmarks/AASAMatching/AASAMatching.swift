import AASAWorkload
import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.throughput, .wallClock, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(3))
    // One iteration = the whole URL mix; throughput × URLs-in-mix = decisions/s.
    Benchmark("AASA compiled matcher, 50 components") { benchmark in
        guard let matcher = Workload.makeMatcher() else { return }
        for _ in benchmark.scaledIterations {
            for url in Workload.urls { blackHole(matcher.decide(appID: Workload.appID, url: url)) }
        }
    }
    Benchmark("AASA NSRegularExpression baseline, 50 components") { benchmark in
        guard let baseline = RegexBaseline() else { return }
        for _ in benchmark.scaledIterations {
            for url in Workload.urls { blackHole(baseline.decide(url)) }
        }
    }
}
