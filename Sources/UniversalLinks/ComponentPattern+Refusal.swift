extension ComponentPattern {
    /// The part of a component that refused a URL (`handover aasa match --explain`).
    enum Refusal: Equatable {
        /// A pattern names an undefined `$(name)`: the component never matches.
        case undefinedVariable
        case path
        /// The whole-query pattern.
        case query
        /// A query dictionary's item, by name; `present` is false when the URL lacks the item.
        case queryItem(name: String, present: Bool)
        case fragment
    }

    /// Why this component does not match `subject`, with how many of its parts (path, query,
    /// fragment, in that order) passed before the refusal; nil when it matches. The checks are
    /// those of `matches(_:)`, one part at a time.
    func refusal(_ subject: MatchSubject) -> (refusal: Refusal, passed: Int)? {
        if neverMatches { return (.undefinedVariable, 0) }
        guard let form = subject.form(formIndex) else { return (.path, 0) }
        if let path, !Self.pathMatches(path, pathWithoutSlashStar, form.path) { return (.path, 0) }
        switch query {
        case .anything: break
        case .whole(let pattern):
            guard form.query.withUnsafeBufferPointer({ pattern.matches($0) }) else { return (.query, 1) }
        case .items(let items):
            for item in items {
                var seen = false
                for candidate in form.items where candidate.name.elementsEqual(item.name) {
                    seen = true
                    guard candidate.value.withUnsafeBufferPointer({ item.pattern.matches($0) }) else {
                        return (.queryItem(name: String(decoding: item.name, as: UTF8.self), present: true), 1)
                    }
                }
                if !seen && !item.pattern.matches(UnsafeBufferPointer(start: nil, count: 0)) {
                    return (.queryItem(name: String(decoding: item.name, as: UTF8.self), present: false), 1)
                }
            }
        }
        if let fragment, !form.fragment.withUnsafeBufferPointer({ fragment.matches($0) }) { return (.fragment, 2) }
        return nil
    }
}
