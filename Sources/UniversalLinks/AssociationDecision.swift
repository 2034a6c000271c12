/// What iOS would do with a URL for one app.
public enum AssociationOutcome: String, Sendable, Equatable, CaseIterable {
    /// A component claims the URL: it opens the app.
    case match
    /// The first component that applies has `exclude: true` (or a legacy `NOT ` path): the URL
    /// opens in the browser.
    case exclude
    /// Nothing claims the URL for this app.
    case noMatch = "no_match"
}

/// The component or legacy path that decided.
public struct DecidingRule: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `details[d].components[i]`.
        case component(Int)
        /// `details[d].paths[i]`.
        case legacyPath(Int)
    }

    /// The index of the entry in `applinks.details`.
    public var detailsIndex: Int
    public var kind: Kind
    /// The rule as written: a component's compact JSON, or a legacy path string in quotes.
    public var text: String

    /// `components[1]` or `paths[0]`.
    public var name: String {
        switch kind {
        case .component(let i): return "components[\(i)]"
        case .legacyPath(let i): return "paths[\(i)]"
        }
    }

    /// The JSON path of the rule in the file: `$.applinks.details[0].components[1]`.
    public var jsonPath: String { "$.applinks.details[\(detailsIndex)].\(name)" }
}

/// A decision and the rule that made it.
public struct AssociationDecision: Sendable, Equatable, CustomStringConvertible {
    public var outcome: AssociationOutcome
    /// nil for `.noMatch`.
    public var rule: DecidingRule?

    public init(outcome: AssociationOutcome, rule: DecidingRule?) {
        self.outcome = outcome
        self.rule = rule
    }

    /// `match by components[1] {"/":"/buy/*"}`, `exclude by paths[0] "NOT /old/*"`, `no match`.
    public var description: String {
        guard let rule else { return "no match" }
        return "\(outcome.rawValue) by \(rule.name) \(rule.text)"
    }
}
