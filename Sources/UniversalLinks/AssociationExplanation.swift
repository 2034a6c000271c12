/// Why a URL is or is not claimed for an app: the decision, and for a URL nothing claims, the
/// component that came closest and the part of it that refused (`handover aasa match --explain`).
public struct AssociationExplanation: Sendable, Equatable, CustomStringConvertible {
    /// What refused the URL.
    public enum Part: String, Sendable, Equatable {
        /// The URL is not an absolute http(s) URL.
        case url
        /// The URL's host (or port) is not the file's domain.
        case host
        /// The file has no entry for the app.
        case app
        case path
        case query
        case queryItem = "query item"
        case fragment
        case substitutionVariable = "substitution variable"
    }

    public var decision: AssociationDecision
    /// For a URL nothing claims: the rule that came closest (most parts passed, first in file
    /// order on a tie); nil when no rule was tried.
    public var closest: DecidingRule?
    /// What refused the URL; nil when a rule matched or excluded it.
    public var refusedBy: Part?
    /// A sentence: what refused, and how (including a case or percent-encoding setting under
    /// which the closest rule would match).
    public var detail: String

    public var description: String {
        switch decision.outcome {
        case .match: return "match by \(decision.rule.map { "\($0.jsonPath) \($0.text)" } ?? "")"
        case .exclude: return "exclude: \(decision.rule.map { "\($0.jsonPath) \($0.text)" } ?? "") has \"exclude\": true, and it is the first rule that matches"
        case .noMatch:
            let closest = closest.map { "closest: \($0.jsonPath) \($0.text); " } ?? ""
            return "no match: \(closest)\(refusedBy?.rawValue ?? "the URL") refused it: \(detail)"
        }
    }
}

/// Explains decisions: the same rules as ``AssociationMatcher``, tried one part at a time.
/// Slower than the matcher; meant for one URL at a time.
public struct AssociationExplainer: Sendable {
    let file: AssociationFile
    let domain: String
    let compiled: CompiledFile

    public init(file: AssociationFile, domain: String) {
        self.file = file
        self.domain = domain
        compiled = CompiledFile(file: file)
    }

    public func explain(appID: String, url text: String) -> AssociationExplanation {
        let noMatch = AssociationDecision(outcome: .noMatch, rule: nil)
        guard let url = SplitURL(text) else {
            return AssociationExplanation(decision: noMatch, refusedBy: .url, detail: "'\(text)' is not an absolute URL such as https://\(domain)/path")
        }
        guard AssociationMatcher.isHTTPScheme(url.bytes[url.schemeRange]) else {
            return AssociationExplanation(decision: noMatch, refusedBy: .url, detail: "the scheme is \(url.scheme); universal links are https (or http) URLs")
        }
        guard url.isOnDomain(DomainName(domain)) else {
            return AssociationExplanation(decision: noMatch, refusedBy: .host,
                                          detail: "the URL's host is \(url.host)\(url.port.map { ":\($0)" } ?? ""), not the file's domain \(domain)")
        }
        guard let entries = compiled.entriesByApp[appID] else {
            let named = compiled.entriesByApp.keys.sorted()
            return AssociationExplanation(decision: noMatch, refusedBy: .app,
                                          detail: "the file has no details entry for \(appID)" + (named.isEmpty ? "" : "; it names \(named.joined(separator: ", "))"))
        }
        let subject = MatchSubject(url: url, neededForms: 0b1111, needsItems: true)
        // Closest: the most parts passed; then a rule that a case or encoding setting would make
        // match; then the longest common start of the URL's path and the rule's path pattern.
        var best: (pattern: ComponentPattern, refusal: ComponentPattern.Refusal, score: [Int], hint: String)?
        for index in entries {
            for pattern in compiled.details[index] {
                guard let (refusal, passed) = pattern.refusal(subject) else {
                    return AssociationExplanation(decision: AssociationDecision(outcome: pattern.exclude ? .exclude : .match, rule: pattern.rule),
                                                  detail: pattern.exclude ? "excluded by the first rule that matches" : "claimed by the first rule that matches")
                }
                let hint = hint(for: pattern.rule, subject: subject)
                let score = [passed, hint.isEmpty ? 0 : 1, Self.commonStart(url.path, component(pattern.rule)?.component.path ?? "")]
                if best == nil || score.lexicographicallyPrecedes(best!.score) == false && score != best!.score {
                    best = (pattern, refusal, score, hint)
                }
            }
        }
        guard let best else {
            return AssociationExplanation(decision: noMatch, refusedBy: .app, detail: "the app's entries have no components or paths")
        }
        let (part, detail) = describe(best.refusal, of: best.pattern.rule, url: url)
        return AssociationExplanation(decision: noMatch, closest: best.pattern.rule, refusedBy: part, detail: detail + best.hint)
    }

    /// How many leading characters two paths share, without regard to case.
    static func commonStart(_ a: String, _ b: String) -> Int {
        zip(a.lowercased().utf8, b.lowercased().utf8).prefix { $0 == $1 }.count
    }

    private func component(_ rule: DecidingRule) -> (component: Component, options: MatchingOptions)? {
        guard let appLinks = file.appLinks, appLinks.details.indices.contains(rule.detailsIndex) else { return nil }
        let details = appLinks.details[rule.detailsIndex]
        switch rule.kind {
        case .component(let index):
            guard let components = details.components, components.indices.contains(index) else { return nil }
            return (components[index], components[index].options.overriding(details.defaults.overriding(appLinks.defaults)))
        case .legacyPath(let index):
            guard let paths = details.legacyPaths, paths.indices.contains(index) else { return nil }
            let text = paths[index]
            return (Component(path: text.hasPrefix("NOT ") ? String(text.dropFirst(4)) : text), MatchingOptions(caseSensitive: true, percentEncoded: true))
        }
    }

    private func describe(_ refusal: ComponentPattern.Refusal, of rule: DecidingRule, url: SplitURL) -> (AssociationExplanation.Part, String) {
        let parts = component(rule)?.component
        switch refusal {
        case .undefinedVariable:
            return (.substitutionVariable, "a pattern names a $(name) the file does not define, so the rule never matches")
        case .path:
            return (.path, "the path \(url.path) does not match \"\(parts?.path ?? "")\"")
        case .query:
            var pattern = ""
            if case .whole(let text)? = parts?.query { pattern = text }
            return (.query, "the query '\(url.query ?? "")' does not match \"\(pattern)\"")
        case .queryItem(let name, let present):
            var pattern = ""
            if case .items(let items)? = parts?.query { pattern = items.first { $0.name == name }?.pattern ?? "" }
            if !present { return (.queryItem, "the query has no item '\(name)', and \"\(pattern)\" does not match an absent (empty) value") }
            let values = MatchSubject.splitItems(Array((url.query ?? "").utf8)[...])
                .filter { String(decoding: $0.name, as: UTF8.self) == name }.map { String(decoding: $0.value, as: UTF8.self) }
            return (.queryItem, "the item \(name)=\(values.joined(separator: ", \(name)=")) does not match \"\(pattern)\"")
        case .fragment:
            return (.fragment, "the fragment '\(url.fragment ?? "")' does not match \"\(parts?.fragment ?? "")\"")
        }
    }

    /// A setting under which the rule would match: case or percent-encoding.
    private func hint(for rule: DecidingRule, subject: MatchSubject) -> String {
        guard let (component, options) = component(rule), case .component = rule.kind else { return "" }
        let variables = file.appLinks.map { SubstitutionVariables($0.substitutionVariables) }
        func matches(_ changed: MatchingOptions) -> Bool {
            ComponentPattern(component: component, options: changed, variables: variables, rule: rule).matches(subject)
        }
        if options.caseSensitive ?? true, matches(MatchingOptions(caseSensitive: false, percentEncoded: options.percentEncoded)) {
            return "; it differs only in letter case: it would match with \"caseSensitive\": false"
        }
        if options.percentEncoded ?? true, matches(MatchingOptions(caseSensitive: options.caseSensitive, percentEncoded: false)) {
            return "; it differs only in percent-encoding: it would match with \"percentEncoded\": false (the URL is then decoded first)"
        }
        return ""
    }
}
