/// The URLs whose decision changes between two association files, for each app either names.
///
/// ```swift
/// let changes = AssociationDiff.changes(from: old, to: new, domain: "example.com",
///                                       urls: AssociationProbes.urls(for: [old, new], domain: "example.com"))
/// for change in changes { print(change) }
/// ```
public enum AssociationDiff {
    /// One URL decided differently for one app.
    public struct Change: Sendable, Equatable, CustomStringConvertible {
        public var appID: String
        public var url: String
        public var old: AssociationDecision
        public var new: AssociationDecision

        /// `ABCDE12345.com.example.app  https://example.com/buy/1  match by components[0] {"/":"/buy/*"}  →  no match`
        public var description: String {
            "\(appID)  \(url)  \(Self.describe(old))  →  \(Self.describe(new))"
        }

        static func describe(_ decision: AssociationDecision) -> String {
            guard let rule = decision.rule else { return decision.description }
            return "\(decision.outcome.rawValue) by details[\(rule.detailsIndex)].\(rule.name) \(rule.text)"
        }
    }

    /// The apps named by either file, sorted.
    public static func appIDs(_ files: [AssociationFile]) -> [String] {
        Set(files.flatMap { $0.appLinks?.details.flatMap(\.appIDs) ?? [] }).sorted()
    }

    /// Decides every URL for every app (all of `appIDs(_:)` when `apps` is nil) with both files
    /// and returns the decisions that differ, in the order of `apps`, then of `urls`. A change of
    /// the deciding rule alone (same outcome, another component) counts as a change.
    public static func changes(from old: AssociationFile, to new: AssociationFile, domain: String,
                               urls: [String], apps: [String]? = nil) -> [Change] {
        let before = AssociationMatcher(file: old, domain: domain)
        let after = AssociationMatcher(file: new, domain: domain)
        var changes: [Change] = []
        for appID in apps ?? appIDs([old, new]) {
            for url in urls {
                let a = before.decide(appID: appID, url: url), b = after.decide(appID: appID, url: url)
                if a.outcome != b.outcome || a.rule?.text != b.rule?.text {
                    changes.append(Change(appID: appID, url: url, old: a, new: b))
                }
            }
        }
        return changes
    }
}
