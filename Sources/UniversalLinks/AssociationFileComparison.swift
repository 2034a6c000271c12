/// How two copies of one domain's association file differ, app by app: the origin's file against
/// the copy Apple's CDN serves to devices (`handover aasa check DOMAIN --cdn`).
///
/// Since iOS 14 devices fetch the file from Apple's CDN,
/// `https://app-site-association.cdn-apple.com/a/v1/<domain>`, not from the origin; the CDN
/// refreshes its copy periodically, on a schedule Apple does not publish (Apple's reply in the
/// developer forums, thread 651737). A stale copy is the usual reason a changed file "does not
/// work yet".
public enum AssociationFileComparison {
    /// One way the copies differ.
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The app is in the origin's file and not in the copy: added since the copy was made.
            case onlyInOrigin
            /// The app is in the copy and not in the origin's file: removed since.
            case onlyInCopy
            /// The app's rules (components or legacy paths, in order) differ.
            case rulesDiffer(origin: [String], copy: [String])
            /// Something outside `applinks.details` differs (webcredentials, appclips, defaults,
            /// substitution variables).
            case otherSection(String)
        }

        /// The app the difference is about; empty for ``Kind/otherSection(_:)``.
        public var appID: String
        public var kind: Kind

        public var description: String {
            switch kind {
            case .onlyInOrigin:
                "\(appID): in the origin's file, not in the CDN's copy (added since the CDN fetched it; devices do not see it yet)"
            case .onlyInCopy:
                "\(appID): in the CDN's copy, not in the origin's file (removed since; devices still see it)"
            case .rulesDiffer(let origin, let copy):
                "\(appID): its rules differ; origin \(Self.list(origin)), CDN \(Self.list(copy))"
            case .otherSection(let name):
                "\(name) differs between the origin's file and the CDN's copy"
            }
        }

        static func list(_ rules: [String]) -> String { "[" + rules.joined(separator: ", ") + "]" }
    }

    /// The rules that apply to `appID`, in the order iOS tries them: each entry's components (as
    /// compact JSON), or its legacy paths when it has no components.
    public static func rules(of appID: String, in file: AssociationFile) -> [String] {
        (file.appLinks?.details ?? []).filter { $0.appIDs.contains(appID) }.flatMap { details in
            details.components.map { $0.map { canonical($0.json).compactText } } ?? (details.legacyPaths ?? []).map { "\"\($0)\"" }
        }
    }

    /// The differences between `origin` and `copy`; empty when every app's rules and the other
    /// sections agree (the bytes may still differ: white space, key order).
    public static func differences(origin: AssociationFile, copy: AssociationFile) -> [Difference] {
        let originApps = Set(AssociationDiff.appIDs([origin])), copyApps = Set(AssociationDiff.appIDs([copy]))
        var differences: [Difference] = []
        for appID in originApps.union(copyApps).sorted() {
            if !copyApps.contains(appID) {
                differences.append(Difference(appID: appID, kind: .onlyInOrigin))
            } else if !originApps.contains(appID) {
                differences.append(Difference(appID: appID, kind: .onlyInCopy))
            } else {
                let a = rules(of: appID, in: origin), b = rules(of: appID, in: copy)
                if a != b { differences.append(Difference(appID: appID, kind: .rulesDiffer(origin: a, copy: b))) }
            }
        }
        for section in ["webcredentials", "appclips"] where canonical(origin.json[section]) != canonical(copy.json[section]) {
            differences.append(Difference(appID: "", kind: .otherSection(section)))
        }
        for key in ["defaults", "substitutionVariables"] where canonical(origin.json["applinks"]?[key]) != canonical(copy.json["applinks"]?[key]) {
            differences.append(Difference(appID: "", kind: .otherSection("applinks.\(key)")))
        }
        return differences
    }

    /// `value` with every object's keys sorted, so that key order (which iOS ignores) is no
    /// difference.
    static func canonical(_ value: JSONValue?) -> JSONValue? {
        value.map(canonical)
    }

    static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.map { (key: $0.key, value: canonical($0.value)) }.sorted { $0.key < $1.key })
        case .array(let items): .array(items.map(canonical))
        default: value
        }
    }
}
