// libFuzzer harness for UniversalLinks: parse, validate, compile and decide.
// Built by scripts/fuzz.sh together with the module's sources.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = AssociationValidator.validate(bytes)
    _ = AssetLinksValidator.validate(bytes)
    guard let file = try? AssociationFileParser.parse(bytes) else { return 0 }
    let matcher = AssociationMatcher(file: file, domain: "example.com")

    // URLs derived from the input: fixed shapes, plus every string in the file used as a path,
    // query and fragment.
    var urls = ["https://example.com/", "https://example.com/buy/42?a=1&a=2#frag", "https://example.com/caf%C3%A9%2F%zz?q=%41", "https://other.example/x"]
    func strings(_ value: JSONValue, _ out: inout [String]) {
        guard out.count < 16 else { return }
        switch value {
        case .string(let s): out.append(s)
        case .array(let a): for v in a { strings(v, &out) }
        case .object(let m): for (k, v) in m { out.append(k); strings(v, &out) }
        default: break
        }
    }
    var found: [String] = []
    strings(file.json, &found)
    for s in found.prefix(16) {
        let short = String(s.unicodeScalars.prefix(200))
        urls.append("https://example.com/" + short)
        urls.append("https://example.com/p?" + short + "#" + short)
    }
    let appIDs = matcher.appIDs.prefix(4) + ["ABCDE12345.com.example.app"]
    let explainer = AssociationExplainer(file: file, domain: "example.com")
    for appID in appIDs {
        for url in urls {
            let decision = matcher.decide(appID: appID, url: url)
            // Invariant: a decision other than no-match names its rule, and only then.
            if (decision.outcome == .noMatch) != (decision.rule == nil) { fatalError("decision without a rule: \(decision)") }
            _ = decision.description
            // Invariant: --explain decides as the matcher does.
            let explanation = explainer.explain(appID: appID, url: url)
            if explanation.decision != decision { fatalError("the explainer decided \(explanation.decision), the matcher \(decision): \(url)") }
            _ = explanation.description
        }
    }
    // Invariants of the slash rules: reading a path pattern is idempotent, and a pattern read with
    // extra slashes at either end matches exactly what it matches without them.
    for s in found.prefix(4) {
        let short = String(s.unicodeScalars.prefix(60))
        let once = ComponentPattern.normalizedPath(short)
        if ComponentPattern.normalizedPath(once) != once { fatalError("reading \(short) twice gives \(ComponentPattern.normalizedPath(once)), once \(once)") }
        guard once.hasPrefix("/") else { continue }
        func deciding(_ path: String) -> AssociationMatcher {
            let details = AppLinksDetails(appIDs: ["ABCDE12345.com.example.app"], components: [Component(path: path)])
            return AssociationMatcher(file: AssociationFile(appLinks: AppLinksSection(details: [details])), domain: "example.com")
        }
        let plain = deciding(once), padded = deciding("//" + once + "//")
        for url in urls.prefix(8) {
            let a = plain.decide(appID: "ABCDE12345.com.example.app", url: url).outcome
            let b = padded.decide(appID: "ABCDE12345.com.example.app", url: url).outcome
            if a != b { fatalError("slashes around \(once) changed its answer for \(url): \(a) against \(b)") }
        }
    }
    // Invariants: a file does not differ from itself, and its probes decide the same with it twice.
    if !AssociationFileComparison.differences(origin: file, copy: file).isEmpty { fatalError("a file differs from itself") }
    let probes = AssociationProbes.urls(for: [file], domain: "example.com")
    if !AssociationDiff.changes(from: file, to: file, domain: "example.com", urls: Array(probes.prefix(64)), apps: Array(appIDs)).isEmpty {
        fatalError("a file's decisions changed against itself")
    }
    _ = try? AssociationGenerator.appleFile(for: [AppRegistration(appIDs: Array(appIDs), paths: Array(found.prefix(3)))], includeLegacyPaths: true)
    return 0
}
