import AASAWorkload
import Foundation

// Times the compiled matcher and the NSRegularExpression baseline on the same file and URL mix,
// in one run, on one thread.
guard let matcher = Workload.makeMatcher(), let baseline = RegexBaseline() else {
    print("could not build the workload"); exit(1)
}
let urls = Workload.urls
for url in urls where matcher.decide(appID: Workload.appID, url: url).outcome.rawValue != baseline.decide(url) {
    print("disagreement on \(url): ours \(matcher.decide(appID: Workload.appID, url: url).outcome.rawValue), baseline \(baseline.decide(url))")
    exit(1)
}

func measure(seconds: Double, _ body: () -> Int) -> Double {
    var decisions = 0
    let start = Date()
    while Date().timeIntervalSince(start) < seconds { decisions += body() }
    return Double(decisions) / Date().timeIntervalSince(start)
}

var sink = 0
if CommandLine.arguments.contains("--per-url") {
    for url in urls {
        let r = measure(seconds: 0.3) { _ = matcher.decide(appID: Workload.appID, url: url); return 1 }
        print(String(format: "%10.0f/s  %@", r, url))
    }
}
let ours = measure(seconds: 3) {
    for url in urls where matcher.decide(appID: Workload.appID, url: url).outcome == .match { sink &+= 1 }
    return urls.count
}
let regex = measure(seconds: 3) {
    for url in urls where baseline.decide(url) == "match" { sink &+= 1 }
    return urls.count
}
print("components: \(Workload.componentsJSON.count), URLs in the mix: \(urls.count)")
print(String(format: "compiled matcher:        %12.0f decisions/s", ours))
print(String(format: "NSRegularExpression:     %12.0f decisions/s", regex))
print(String(format: "ratio:                   %12.1f x", ours / regex))
if sink == -1 { print(sink) }
