/// One component (or one legacy path), compiled for matching.
///
/// Built by `AssociationMatcher`; see `Component` for the meaning of each key.
final class ComponentPattern: Sendable {
    enum QueryProgram: Sendable {
        /// No `?` key, or `*`, or a dictionary with a non-string value.
        case anything
        /// The whole query must match.
        case whole(WildcardPattern)
        /// Every named item must match; an absent item is compared as the empty string.
        case items([(name: [UInt8], pattern: WildcardPattern)])
    }

    /// What decided, for reports.
    let rule: DecidingRule
    let exclude: Bool
    /// `MatchSubject` form this component compares against.
    let formIndex: Int
    /// nil when the path matches anything.
    let path: WildcardPattern?
    /// For a path pattern ending in `/*`, the pattern without it: `/buy/*` also matches `/buy`.
    let pathWithoutSlashStar: WildcardPattern?
    let query: QueryProgram
    /// nil when the fragment matches anything.
    let fragment: WildcardPattern?
    /// A pattern names an undefined variable: the component never matches.
    let neverMatches: Bool

    var needsItems: Bool {
        if case .items = query { return true }
        return false
    }

    /// - Parameter variables: the definitions `$(name)` refers to; nil reads `$(` as literal text.
    init(component: Component, options: MatchingOptions, variables: SubstitutionVariables?, rule: DecidingRule) {
        let caseSensitive = options.caseSensitive ?? true
        let percentEncoded = options.percentEncoded ?? true
        self.rule = rule
        exclude = component.exclude
        formIndex = MatchSubject.formIndex(percentEncoded: percentEncoded, caseSensitive: caseSensitive)
        func compile(_ text: String) -> WildcardPattern {
            WildcardPattern(text, caseSensitive: caseSensitive, variables: variables ?? SubstitutionVariables(), allowVariables: variables != nil)
        }
        var never = false
        if let pathText = component.path {
            let normalized = Self.normalizedPath(pathText)
            let pattern = compile(normalized)
            never = never || pattern.undefinedVariable != nil
            path = pattern.matchesEverything ? nil : pattern
            if normalized.hasSuffix("/*"), normalized.count > 2 {
                pathWithoutSlashStar = compile(String(normalized.dropLast(2)))
            } else {
                pathWithoutSlashStar = nil
            }
        } else {
            path = nil
            pathWithoutSlashStar = nil
        }
        switch component.query {
        case nil:
            query = .anything
        case .whole(let text)?:
            let pattern = compile(text)
            never = never || pattern.undefinedVariable != nil
            query = pattern.matchesEverything ? .anything : .whole(pattern)
        case .items(let items)?:
            if items.contains(where: { $0.pattern == nil }) {
                query = .anything
            } else {
                let compiled = items.map { item -> (name: [UInt8], pattern: WildcardPattern) in
                    let name = Array(item.name.utf8)
                    return (caseSensitive ? name : WildcardPattern.fold(name), compile(item.pattern ?? "*"))
                }
                never = never || compiled.contains { $0.pattern.undefinedVariable != nil }
                query = compiled.isEmpty ? .anything : .items(compiled)
            }
        }
        if let fragmentText = component.fragment {
            let pattern = compile(fragmentText)
            never = never || pattern.undefinedVariable != nil
            fragment = pattern.matchesEverything ? nil : pattern
        } else {
            fragment = nil
        }
        neverMatches = never
    }

    /// A path pattern as iOS reads it (docs/universal-links.md, "Slashes"):
    /// - one that does not start with `/` or a wildcard is rooted: `abc` is `/abc`;
    /// - a leading run of slashes is one slash: `//buy` and `///buy` are `/buy`;
    /// - trailing slashes are dropped, except the root's own: `/buy/` and `/buy//` are `/buy`, `//` is `/`.
    ///
    /// With the URL's optional trailing slash, `/buy/` therefore matches both `/buy` and `/buy/`.
    static func normalizedPath(_ text: String) -> String {
        let slash = UInt8(ascii: "/")
        let bytes = Array(text.utf8)
        guard let first = bytes.first else { return "/" }
        var start = 0
        while start < bytes.count, bytes[start] == slash { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == slash { end -= 1 }
        // A wildcard may stand for the leading slash itself, so it is not rooted.
        let rooted = first != UInt8(ascii: "*") && first != UInt8(ascii: "?")
        if start == (rooted ? 1 : 0), end == bytes.count { return text }
        return (rooted ? "/" : "") + String(decoding: bytes[start..<end], as: UTF8.self)
    }

    func matches(_ subject: MatchSubject) -> Bool {
        if neverMatches { return false }
        guard let form = subject.form(formIndex) else { return false }
        if let path, !Self.pathMatches(path, pathWithoutSlashStar, form.path) { return false }
        switch query {
        case .anything: break
        case .whole(let pattern):
            guard form.query.withUnsafeBufferPointer({ pattern.matches($0) }) else { return false }
        case .items(let items):
            for item in items {
                var seen = false
                for candidate in form.items where candidate.name.elementsEqual(item.name) {
                    seen = true
                    guard candidate.value.withUnsafeBufferPointer({ item.pattern.matches($0) }) else { return false }
                }
                if !seen && !item.pattern.matches(UnsafeBufferPointer(start: nil, count: 0)) { return false }
            }
        }
        if let fragment, !form.fragment.withUnsafeBufferPointer({ fragment.matches($0) }) { return false }
        return true
    }

    /// The path rules observed on iOS: every trailing `/` of the URL's path is ignored, as the
    /// pattern's are (`/buy` matches `/buy/`, and `/buy/` matches `/buy//`: swcutil, macOS 27), and
    /// a trailing `/*` in the pattern also matches the bare path (`/buy/*` matches `/buy`).
    static func pathMatches(_ pattern: WildcardPattern, _ withoutSlashStar: WildcardPattern?, _ path: ArraySlice<UInt8>) -> Bool {
        path.withUnsafeBufferPointer { buffer in
            let bare = UnsafeBufferPointer(rebasing: buffer[..<withoutTrailingSlashes(buffer)])
            if pattern.matches(bare) { return true }
            if let withoutSlashStar, withoutSlashStar.matches(bare) { return true }
            return false
        }
    }

    /// The end of `path` without its trailing slashes, keeping one byte: `/buy//` is `/buy`, `//` is `/`.
    static func withoutTrailingSlashes(_ path: UnsafeBufferPointer<UInt8>) -> Int {
        var end = path.count
        while end > 1, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end
    }
}
