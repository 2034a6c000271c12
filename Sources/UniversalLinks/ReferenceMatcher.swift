/// The straightforward matcher `AssociationMatcher` was first written as: one `ComponentPattern`
/// object per rule, tried against a `MatchSubject` that holds every needed form as arrays.
///
/// It is slower (it allocates per URL), and is kept as the reference the flat `MatchProgram` is
/// tested against (`MatchProgramTests`). Both compile rules through `ComponentPattern`.
struct ReferenceMatcher {
    let domainName: DomainName
    let rulesByApp: [String: [[ComponentPattern]]]
    let neededForms: UInt8
    let needsItems: Bool

    init(file: AssociationFile, domain: String) {
        domainName = DomainName(domain)
        let compiled = CompiledFile(file: file)
        var rulesByApp: [String: [[ComponentPattern]]] = [:]
        for (appID, entries) in compiled.entriesByApp {
            rulesByApp[appID] = entries.map { compiled.details[$0] }
        }
        self.rulesByApp = rulesByApp
        neededForms = compiled.neededForms
        needsItems = compiled.needsItems
    }

    func decide(appID: String, url: String) -> AssociationDecision {
        guard let raw = SplitURL(url) else { return AssociationDecision(outcome: .noMatch, rule: nil) }
        return decide(appID: appID, url: raw)
    }

    func decide(appID: String, url: SplitURL) -> AssociationDecision {
        guard let entries = rulesByApp[appID] else { return AssociationDecision(outcome: .noMatch, rule: nil) }
        let scheme = url.bytes[url.schemeRange]
        guard AssociationMatcher.isHTTPScheme(scheme), url.isOnDomain(domainName) else {
            return AssociationDecision(outcome: .noMatch, rule: nil)
        }
        let subject = MatchSubject(url: url, neededForms: neededForms, needsItems: needsItems)
        for rules in entries {
            for rule in rules where rule.matches(subject) {
                return AssociationDecision(outcome: rule.exclude ? .exclude : .match, rule: rule.rule)
            }
        }
        return AssociationDecision(outcome: .noMatch, rule: nil)
    }
}

/// A file's `applinks.details` compiled to `ComponentPattern`s: the shared first step of
/// `AssociationMatcher` and `ReferenceMatcher`.
struct CompiledFile {
    /// Per details entry, its rules in order.
    var details: [[ComponentPattern]] = []
    /// Per app ID, the indexes of the details entries that list it, in file order.
    var entriesByApp: [String: [Int]] = [:]
    var neededForms: UInt8 = 0
    var needsItems = false

    init(file: AssociationFile) {
        guard let appLinks = file.appLinks else { return }
        let variables = SubstitutionVariables(appLinks.substitutionVariables)
        for (detailsIndex, details) in appLinks.details.enumerated() {
            let detailsOptions = details.defaults.overriding(appLinks.defaults)
            var rules: [ComponentPattern] = []
            if let components = details.components {
                for (index, component) in components.enumerated() {
                    let rule = DecidingRule(detailsIndex: detailsIndex, kind: .component(index), text: component.json.compactText)
                    rules.append(ComponentPattern(component: component, options: component.options.overriding(detailsOptions), variables: variables, rule: rule))
                }
            } else if let paths = details.legacyPaths {
                for (index, text) in paths.enumerated() {
                    let rule = DecidingRule(detailsIndex: detailsIndex, kind: .legacyPath(index), text: JSONValue.string(text).compactText)
                    rules.append(Self.legacyRule(text, rule: rule))
                }
            }
            for rule in rules {
                neededForms |= 1 << rule.formIndex
                needsItems = needsItems || rule.needsItems
            }
            for appID in Set(details.appIDs) {
                entriesByApp[appID, default: []].append(self.details.count)
            }
            self.details.append(rules)
        }
    }

    /// A legacy path: `NOT ` excludes; only the path is compared, as written and case-sensitively
    /// (the iOS 13 options do not apply to the iOS 9–12 format).
    static func legacyRule(_ text: String, rule: DecidingRule) -> ComponentPattern {
        let exclude = text.hasPrefix("NOT ")
        let path = exclude ? String(text.dropFirst(4)) : text
        // Legacy paths predate substitution variables: `$(` is literal text there.
        return ComponentPattern(component: Component(path: path, exclude: exclude), options: MatchingOptions(caseSensitive: true, percentEncoded: true), variables: nil, rule: rule)
    }
}
