/// Decides, the way iOS does, whether a URL opens an app, from one domain's association file.
///
/// Build it once per file; every pattern is compiled up front, so `decide` runs no regular
/// expression and allocates nothing per component in the common case.
///
/// ```swift
/// let file = try AssociationFileParser.parse(text: aasaJSON)
/// let matcher = AssociationMatcher(file: file, domain: "example.com")
/// matcher.decide(appID: "ABCDE12345.com.example.app", url: "https://example.com/buy/42")
/// // match by components[1] {"/":"/buy/*"}
/// ```
///
/// Rules, in order:
/// - a URL that is not `http(s)://` on the file's domain never matches;
/// - the details entries that list the app are tried in file order; within one, the first
///   component (or legacy path) that matches decides: `.match`, or `.exclude` when it excludes;
/// - a details entry with `components` ignores its legacy `paths`.
public struct AssociationMatcher: Sendable {
    /// The domain the file is served from.
    public let domain: String
    private let domainName: DomainName
    /// Per app ID, the compiled rules of each of its details entries, in order.
    private let rulesByApp: [String: [[ComponentPattern]]]
    private let neededForms: UInt8
    private let needsItems: Bool

    /// Compiles `file` for URLs on `domain` (a host name, optionally with `:port`).
    public init(file: AssociationFile, domain: String) {
        self.domain = domain
        domainName = DomainName(domain)
        var rulesByApp: [String: [[ComponentPattern]]] = [:]
        var neededForms: UInt8 = 0
        var needsItems = false
        if let appLinks = file.appLinks {
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
                    rulesByApp[appID, default: []].append(rules)
                }
            }
        }
        self.rulesByApp = rulesByApp
        self.neededForms = neededForms
        self.needsItems = needsItems
    }

    /// A legacy path: `NOT ` excludes; only the path is compared, as written and case-sensitively
    /// (the iOS 13 options do not apply to the iOS 9–12 format).
    private static func legacyRule(_ text: String, rule: DecidingRule) -> ComponentPattern {
        let exclude = text.hasPrefix("NOT ")
        let path = exclude ? String(text.dropFirst(4)) : text
        // Legacy paths predate substitution variables: `$(` is literal text there.
        return ComponentPattern(component: Component(path: path, exclude: exclude), options: MatchingOptions(caseSensitive: true, percentEncoded: true), variables: nil, rule: rule)
    }

    /// The apps the file names in `applinks.details`.
    public var appIDs: [String] { rulesByApp.keys.sorted() }

    /// Decides `url` (an absolute URL string, taken as written) for the app `appID`
    /// (`TEAMID.bundle.id`).
    public func decide(appID: String, url: String) -> AssociationDecision {
        guard let raw = RawURL(url) else { return AssociationDecision(outcome: .noMatch, rule: nil) }
        return decide(appID: appID, url: raw)
    }

    /// Decides an already split URL for the app `appID`.
    public func decide(appID: String, url: RawURL) -> AssociationDecision {
        guard let entries = rulesByApp[appID] else { return AssociationDecision(outcome: .noMatch, rule: nil) }
        let scheme = url.bytes[url.schemeRange]
        guard Self.isHTTPScheme(scheme), url.isOnDomain(domainName) else {
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

    private static func isHTTPScheme(_ scheme: ArraySlice<UInt8>) -> Bool {
        let https: [UInt8] = [0x68, 0x74, 0x74, 0x70, 0x73]
        guard scheme.count == 4 || scheme.count == 5 else { return false }
        for (offset, byte) in scheme.enumerated() where byte | 0x20 != https[offset] { return false }
        return true
    }
}
