/// Every rule of one association file, flattened for `AssociationMatcher.decide`: plain structs in
/// contiguous arrays that refer to each other by index, with the tokens and literal bytes of all
/// patterns in one shared buffer each.
///
/// `decide` walks these through unsafe buffer pointers taken once per decision, so matching a
/// rule retains nothing and allocates nothing. The URL is matched in place: a `String`'s own
/// UTF-8 storage is split without a copy, and the percent-decoded or case-folded forms that
/// some rules compare against are written to one stack scratch buffer per decision.
///
/// Rules are compiled by `ComponentPattern` (the semantics live there and in `WildcardPattern`)
/// and then copied here; `ReferenceMatcher` matches the same `ComponentPattern`s directly and the
/// two are tested against each other.
final class MatchProgram: Sendable {
    struct Pattern: Sendable {
        enum Kind: UInt8, Sendable {
            /// A program without variables, matched by `WildcardPattern.matchGlob` over
            /// `tokens[tokenStart ..< tokenStart + tokenCount]`.
            case glob
            /// A program with variables (`.variable` tokens index `variables`), matched by `Search`.
            case search
            /// `*`: matches everything.
            case everything
            /// Names an undefined variable: matches nothing.
            case never
        }
        let kind: Kind
        let tokenStart: Int
        let tokenCount: Int
        /// For `.search`: whether backtracking can revisit states (see `WildcardPattern.needsMemo`).
        let needsMemo: Bool
    }

    /// One `$(name)` of one pattern: its alternatives starting with byte `b` are
    /// `alternativeList[firstByteTable[tableStart + b] ..< firstByteTable[tableStart + b + 1]]`,
    /// then those that start with a wildcard (or are empty) are `alternativeList[unanchoredStart ..< unanchoredEnd]`.
    ///
    /// When every alternative is one literal of the same length (`$(lang)`, `$(digit)`...),
    /// `keyLength` is that length (1...8) and the alternatives are also the sorted packed keys
    /// `variableKeys[keyStart ..< keyEnd]`, looked up by binary search instead of tried in turn.
    struct Variable: Sendable {
        let tableStart: Int
        let unanchoredStart: Int
        let unanchoredEnd: Int
        let keyLength: Int
        let keyStart: Int
        let keyEnd: Int
    }

    /// One alternative of a variable: `tokens[tokenStart ..< tokenStart + tokenCount]`, without variables.
    struct Alternative: Sendable {
        let tokenStart: Int
        let tokenCount: Int
    }

    /// One named query item of a dictionary `?`: its name is `literals[nameStart ..< nameStart + nameCount]`.
    struct Item: Sendable {
        let nameStart: Int
        let nameCount: Int
        let pattern: Int
    }

    /// One `ComponentPattern`, with patterns as indexes into `patterns` (-1: matches anything).
    struct Rule: Sendable {
        enum Query: UInt8, Sendable { case anything, whole, items }
        let decidingRule: Int
        let form: Int
        let exclude: Bool
        let neverMatches: Bool
        let path: Int
        let pathWithoutSlashStar: Int
        let query: Query
        let queryPattern: Int
        let itemStart: Int
        let itemCount: Int
        let fragment: Int
    }

    /// A rule in an app's order, with its quick reject inline: a path the rule can match starts
    /// with `prefixCount` (≤ 16) known bytes, packed little-endian into `word0` (bytes 0–7) and
    /// `word1` (8–15) and compared under `mask0` and `mask1`. A rule without a path pattern has
    /// an empty prefix.
    struct Entry: Sendable {
        let rule: Int
        let form: Int
        let prefixCount: Int
        let word0: UInt64
        let mask0: UInt64
        let word1: UInt64
        let mask1: UInt64
    }

    let tokens: [WildcardPattern.Token]
    let literals: [UInt8]
    let patterns: [Pattern]
    let items: [Item]
    let rules: [Rule]
    let variables: [Variable]
    let alternatives: [Alternative]
    let alternativeList: [Int]
    let firstByteTable: [Int]
    let variableKeys: [UInt64]
    let decidingRules: [DecidingRule]
    /// The rules of app `a` are `entries[appStarts[a] ..< appStarts[a + 1]]`, in order; rules
    /// that can never match are left out.
    let appIDs: [String]
    let appStarts: [Int]
    let entries: [Entry]
    /// The domain the file is served from, as given and parsed.
    let domain: String
    let domainName: DomainName
    let appLookup: [String: Int]
    let neededForms: UInt8

    init(_ file: CompiledFile, domain: String) {
        self.domain = domain
        domainName = DomainName(domain)
        var builder = Builder()
        var detailsRules: [[Int]] = []
        for details in file.details {
            detailsRules.append(details.map { builder.add($0) })
        }
        var appIDs: [String] = [], appStarts: [Int] = [0], order: [Entry] = []
        var appLookup: [String: Int] = [:]
        for (appID, entries) in file.entriesByApp {
            appLookup[appID] = appIDs.count
            appIDs.append(appID)
            for entry in entries {
                order.append(contentsOf: detailsRules[entry].map { builder.entries[$0] }.filter { !builder.rules[$0.rule].neverMatches })
            }
            appStarts.append(order.count)
        }
        tokens = builder.tokens
        literals = builder.literals
        patterns = builder.patterns
        items = builder.items
        rules = builder.rules
        variables = builder.variables
        alternatives = builder.alternatives
        alternativeList = builder.alternativeList
        firstByteTable = builder.firstByteTable
        decidingRules = builder.decidingRules
        self.appIDs = appIDs
        self.appStarts = appStarts
        entries = order
        variableKeys = builder.variableKeys
        self.appLookup = appLookup
        neededForms = file.neededForms
    }

    /// The index of `appID` in `appIDs`.
    @inline(__always)
    func app(_ appID: String) -> Int? {
        if appIDs.count <= 8 {
            for (index, name) in appIDs.enumerated() where name == appID { return index }
            return nil
        }
        return appLookup[appID]
    }

    private struct Builder {
        var tokens: [WildcardPattern.Token] = []
        var literals: [UInt8] = []
        var patterns: [Pattern] = []
        var items: [Item] = []
        var rules: [Rule] = []
        var variables: [Variable] = []
        var alternatives: [Alternative] = []
        var alternativeList: [Int] = []
        var firstByteTable: [Int] = []
        var variableKeys: [UInt64] = []
        /// Per rule, its entry.
        var entries: [Entry] = []
        var decidingRules: [DecidingRule] = []

        /// Appends `pattern`'s tokens (literal starts rebased to the shared `literals`, variable
        /// indexes mapped through `variableMap`) and returns where they start.
        mutating func copyTokens(_ pattern: WildcardPattern, variableMap: [Int] = []) -> Int {
            let tokenStart = tokens.count
            let base = literals.count
            literals.append(contentsOf: pattern.literals)
            for token in pattern.tokens {
                switch token {
                case let .literal(start, length): tokens.append(.literal(start: base + start, length: length))
                case let .variable(index): tokens.append(.variable(variableMap[index]))
                case .one, .star: tokens.append(token)
                }
            }
            return tokenStart
        }

        mutating func add(_ variable: VariableAlternatives) -> Int {
            let first = alternatives.count
            for alternative in variable.alternatives {
                let start = copyTokens(alternative)
                alternatives.append(Alternative(tokenStart: start, tokenCount: alternative.tokens.count))
            }
            let tableStart = firstByteTable.count
            for byte in 0..<256 {
                firstByteTable.append(alternativeList.count)
                alternativeList.append(contentsOf: variable.byFirstByte[byte].map { first + $0 })
            }
            firstByteTable.append(alternativeList.count)
            let unanchoredStart = alternativeList.count
            alternativeList.append(contentsOf: variable.unanchored.map { first + $0 })
            // All alternatives one literal of one length up to 8 bytes: also as sorted keys.
            var keys: [UInt64] = []
            var keyLength = -1
            for alternative in variable.alternatives {
                guard alternative.tokens.count == 1, case let .literal(start, length) = alternative.tokens[0],
                      length <= 8, keyLength == -1 || keyLength == length else { keyLength = 0; break }
                keyLength = length
                keys.append(Self.pack(alternative.literals[start..<(start + length)]))
            }
            let keyStart = variableKeys.count
            if keyLength > 0 { variableKeys.append(contentsOf: Set(keys).sorted()) } else { keyLength = 0 }
            variables.append(Variable(tableStart: tableStart, unanchoredStart: unanchoredStart, unanchoredEnd: alternativeList.count,
                                      keyLength: keyLength, keyStart: keyStart, keyEnd: variableKeys.count))
            return variables.count - 1
        }

        mutating func add(_ pattern: WildcardPattern) -> Int {
            let kind: Pattern.Kind
            var tokenStart = tokens.count
            if pattern.undefinedVariable != nil {
                kind = .never
            } else if pattern.matchesEverything {
                kind = .everything
            } else if !pattern.variables.isEmpty {
                kind = .search
                let variableMap = pattern.variables.map { add($0) }
                tokenStart = copyTokens(pattern, variableMap: variableMap)
            } else {
                kind = .glob
                tokenStart = copyTokens(pattern)
            }
            patterns.append(Pattern(kind: kind, tokenStart: tokenStart, tokenCount: tokens.count - tokenStart, needsMemo: pattern.needsMemo))
            return patterns.count - 1
        }

        /// Up to eight bytes, little-endian.
        static func pack<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
            var word: UInt64 = 0
            for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * index) }
            return word
        }

        /// The bytes every text `pattern` matches starts with.
        static func leadingLiteral(_ pattern: WildcardPattern) -> [UInt8] {
            guard pattern.undefinedVariable == nil, !pattern.matchesEverything,
                  case let .literal(start, length)? = pattern.tokens.first else { return [] }
            return Array(pattern.literals[start..<(start + length)])
        }

        mutating func add(_ component: ComponentPattern) -> Int {
            let path = component.path.map { add($0) } ?? -1
            let withoutSlashStar = component.path != nil ? component.pathWithoutSlashStar.map { add($0) } ?? -1 : -1
            var prefix: [UInt8] = []
            if let pattern = component.path {
                prefix = Self.leadingLiteral(pattern)
                if let other = component.pathWithoutSlashStar {
                    // A path matched by either pattern (or, without its trailing `/`, by the
                    // first) starts with the common part of both leading literals.
                    let second = Self.leadingLiteral(other)
                    var common = 0
                    while common < prefix.count, common < second.count, prefix[common] == second[common] { common += 1 }
                    prefix = Array(prefix[..<common])
                }
            }
            prefix = Array(prefix.prefix(16))
            let low = prefix.prefix(8), high = prefix.dropFirst(8)
            let entry = Entry(rule: rules.count, form: component.formIndex, prefixCount: prefix.count,
                              word0: Self.pack(low), mask0: Self.pack(low.map { _ in 0xFF }),
                              word1: Self.pack(high), mask1: Self.pack(high.map { _ in 0xFF }))
            var query = Rule.Query.anything, queryPattern = -1
            let itemStart = items.count
            switch component.query {
            case .anything: break
            case .whole(let pattern):
                query = .whole
                queryPattern = add(pattern)
            case .items(let list):
                query = .items
                for item in list {
                    let nameStart = literals.count
                    literals.append(contentsOf: item.name)
                    items.append(Item(nameStart: nameStart, nameCount: item.name.count, pattern: add(item.pattern)))
                }
            }
            let fragment = component.fragment.map { add($0) } ?? -1
            decidingRules.append(component.rule)
            rules.append(Rule(decidingRule: decidingRules.count - 1, form: component.formIndex, exclude: component.exclude,
                              neverMatches: component.neverMatches, path: path, pathWithoutSlashStar: withoutSlashStar,
                              query: query, queryPattern: queryPattern, itemStart: itemStart, itemCount: items.count - itemStart,
                              fragment: fragment))
            entries.append(entry)
            return rules.count - 1
        }
    }

    /// The index in `rules` of the first rule of app `app` that matches the URL in `bytes`, or
    /// -1. `bytes` has passed the scheme and domain checks.
    func firstMatch(app: Int, bytes: UnsafeBufferPointer<UInt8>, url: URLParts) -> Int {
        let n = bytes.count
        // Per decoded/folded form: path (or "/"), query and fragment, each at most the URL's
        // length; then room for one query item's name and value; then the "/" of an empty path.
        // A size known at compile time stays on the stack without a run-time check.
        if 5 * n + 8 <= 512 {
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { firstMatch(app: app, bytes: bytes, url: url, scratch: $0) }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 5 * n + 8) { firstMatch(app: app, bytes: bytes, url: url, scratch: $0) }
    }

    @inline(__always)
    private func firstMatch(app: Int, bytes: UnsafeBufferPointer<UInt8>, url: URLParts, scratch: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let n = bytes.count
        let capacity = scratch.count
        do {
            return withUnsafeTemporaryAllocation(of: Form.self, capacity: 4) { forms -> Int in
                let base = scratch.baseAddress!
                base[capacity - 1] = UInt8(ascii: "/")
                let slash = UnsafeBufferPointer(start: base + capacity - 1, count: 1)
                let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
                let rawPath = url.pathRange.isEmpty ? slash : UnsafeBufferPointer(rebasing: bytes[url.pathRange])
                let rawQuery = url.queryRange.map { UnsafeBufferPointer(rebasing: bytes[$0]) } ?? empty
                let rawFragment = url.fragmentRange.map { UnsafeBufferPointer(rebasing: bytes[$0]) } ?? empty
                let raw = Form(path: rawPath, query: rawQuery, fragment: rawFragment, decode: false, fold: false)
                let form = forms.baseAddress!
                form.initialize(repeating: raw, count: 4)
                defer { form.deinitialize(count: 4) }
                // Buffers for the rare forms that fold text beyond ASCII (their length may change).
                var owned: [UnsafeMutableBufferPointer<UInt8>] = []
                defer { for buffer in owned { buffer.deallocate() } }
                var cursor = base
                for index in 1..<4 where neededForms & (1 << index) != 0 {
                    let decode = index & 2 != 0, fold = index & 1 != 0
                    let path = Self.transform(rawPath, decode: decode, fold: fold, cursor: &cursor, owned: &owned)
                    let query = Self.transform(rawQuery, decode: decode, fold: fold, cursor: &cursor, owned: &owned)
                    let fragment = Self.transform(rawFragment, decode: decode, fold: fold, cursor: &cursor, owned: &owned)
                    form[index] = Form(path: path, query: query, fragment: fragment, decode: decode, fold: fold)
                }
                let itemScratch = base + 3 * (n + 1)
                return withRun(rawQuery: rawQuery, itemScratch: itemScratch, itemScratchCount: n) { run, rules in
                    entries.withUnsafeBufferPointer { entries in
                        var k = appStarts[app]
                        let end = appStarts[app + 1]
                        while k < end {
                            let entry = entries.baseAddress! + k
                            let subject = form + entry.pointee.form
                            let path = subject.pointee.path
                            if path.count >= entry.pointee.prefixCount,
                               subject.pointee.pathWord0 & entry.pointee.mask0 == entry.pointee.word0,
                               subject.pointee.pathWord1 & entry.pointee.mask1 == entry.pointee.word1,
                               run.matches(rules.baseAddress! + entry.pointee.rule, subject) {
                                return entry.pointee.rule
                            }
                            k += 1
                        }
                        return -1
                    }
                }
            }
        }
    }

    /// Calls `body` with the program's buffers.
    @inline(__always)
    private func withRun<R>(rawQuery: UnsafeBufferPointer<UInt8>, itemScratch: UnsafeMutablePointer<UInt8>, itemScratchCount: Int,
                            _ body: (Run, UnsafeBufferPointer<Rule>) -> R) -> R {
        tokens.withUnsafeBufferPointer { tokens in
            literals.withUnsafeBufferPointer { literals in
                patterns.withUnsafeBufferPointer { patterns in
                    items.withUnsafeBufferPointer { items in
                        rules.withUnsafeBufferPointer { rules in
                            variables.withUnsafeBufferPointer { variables in
                                alternatives.withUnsafeBufferPointer { alternatives in
                                    alternativeList.withUnsafeBufferPointer { alternativeList in
                                        firstByteTable.withUnsafeBufferPointer { firstByteTable in
                                            variableKeys.withUnsafeBufferPointer { variableKeys in
                                                body(Run(tokens: tokens, literals: literals, patterns: patterns, items: items,
                                                         variables: variables, alternatives: alternatives, alternativeList: alternativeList,
                                                         firstByteTable: firstByteTable, variableKeys: variableKeys, rawQuery: rawQuery,
                                                         itemScratch: itemScratch, itemScratchCount: itemScratchCount), rules)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// One way of looking at the URL (see `MatchSubject`).
    struct Form {
        let path: UnsafeBufferPointer<UInt8>
        let query: UnsafeBufferPointer<UInt8>
        let fragment: UnsafeBufferPointer<UInt8>
        let decode: Bool
        let fold: Bool
        /// The path's bytes 0–7 and 8–15, little-endian, zero-padded.
        let pathWord0: UInt64
        let pathWord1: UInt64

        init(path: UnsafeBufferPointer<UInt8>, query: UnsafeBufferPointer<UInt8>, fragment: UnsafeBufferPointer<UInt8>, decode: Bool, fold: Bool) {
            self.path = path
            self.query = query
            self.fragment = fragment
            self.decode = decode
            self.fold = fold
            var word0: UInt64 = 0, word1: UInt64 = 0
            for index in 0..<min(8, path.count) { word0 |= UInt64(path[index]) << (8 * index) }
            if path.count > 8 {
                for index in 8..<min(16, path.count) { word1 |= UInt64(path[index]) << (8 * (index - 8)) }
            }
            pathWord0 = word0
            pathWord1 = word1
        }
    }

    /// `part` transformed into the scratch at `cursor` (advanced past it), or, for the rare text
    /// folded beyond ASCII, into a new buffer added to `owned`.
    private static func transform(_ part: UnsafeBufferPointer<UInt8>, decode: Bool, fold: Bool, cursor: inout UnsafeMutablePointer<UInt8>,
                                  owned: inout [UnsafeMutableBufferPointer<UInt8>]) -> UnsafeBufferPointer<UInt8> {
        if let count = transform(part, decode: decode, fold: fold, into: cursor) {
            let result = UnsafeBufferPointer(start: cursor, count: count)
            cursor += count
            return result
        }
        let slow = slowTransform(part, decode: decode, fold: fold)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: slow.count)
        _ = buffer.initialize(from: slow)
        owned.append(buffer)
        return UnsafeBufferPointer(buffer)
    }

    /// `PercentDecoding.decode` (when `decode`) then `WildcardPattern.fold` (when `fold`) of
    /// `source`, written to `output`: the number of bytes written, or nil when folding meets a
    /// byte beyond ASCII (then `slowTransform` applies).
    @inline(__always)
    static func transform(_ source: UnsafeBufferPointer<UInt8>, decode: Bool, fold: Bool, into output: UnsafeMutablePointer<UInt8>) -> Int? {
        var count = 0
        let n = source.count
        if decode {
            var i = 0
            while i < n {
                let byte = source[i]
                if byte == UInt8(ascii: "%"), i + 2 < n, let high = hexValue(source[i + 1]), let low = hexValue(source[i + 2]) {
                    output[count] = high << 4 | low
                    i += 3
                } else {
                    output[count] = byte
                    i += 1
                }
                count += 1
            }
        } else {
            var i = 0
            while i < n { output[i] = source[i]; i += 1 }
            count = n
        }
        if fold {
            var i = 0
            while i < count {
                let byte = output[i]
                if byte >= 0x80 { return nil }
                if byte >= 0x41 && byte <= 0x5A { output[i] = byte | 0x20 }
                i += 1
            }
        }
        return count
    }

    /// The transformation of `MatchSubject`, allocating.
    static func slowTransform(_ source: UnsafeBufferPointer<UInt8>, decode: Bool, fold: Bool) -> [UInt8] {
        var bytes = decode ? PercentDecoding.decode(ArraySlice(source)) : Array(source)
        if fold { bytes = WildcardPattern.fold(bytes) }
        return bytes
    }

    /// The program's buffers for one decision.
    struct Run {
        let tokens: UnsafeBufferPointer<WildcardPattern.Token>
        let literals: UnsafeBufferPointer<UInt8>
        let patterns: UnsafeBufferPointer<Pattern>
        let items: UnsafeBufferPointer<Item>
        let variables: UnsafeBufferPointer<Variable>
        let alternatives: UnsafeBufferPointer<Alternative>
        let alternativeList: UnsafeBufferPointer<Int>
        let firstByteTable: UnsafeBufferPointer<Int>
        let variableKeys: UnsafeBufferPointer<UInt64>
        let rawQuery: UnsafeBufferPointer<UInt8>
        /// Room for one transformed query item: a name, then a value, each up to `itemScratchCount` bytes.
        let itemScratch: UnsafeMutablePointer<UInt8>
        let itemScratchCount: Int

        @inline(__always)
        func matches(_ pattern: Int, _ subject: UnsafeBufferPointer<UInt8>) -> Bool {
            let p = patterns[pattern]
            switch p.kind {
            case .glob:
                return WildcardPattern.matchGlob(UnsafeBufferPointer(rebasing: tokens[p.tokenStart..<(p.tokenStart + p.tokenCount)]), literals, subject)
            case .search:
                let program = UnsafeBufferPointer(rebasing: tokens[p.tokenStart..<(p.tokenStart + p.tokenCount)])
                let cells = (p.tokenCount + 1).multipliedReportingOverflow(by: subject.count + 1)
                if p.needsMemo && !cells.overflow && cells.partialValue <= 1 << 22 {
                    return withUnsafeTemporaryAllocation(of: Bool.self, capacity: cells.partialValue) { failed in
                        failed.initialize(repeating: false)
                        return Search(run: self, tokens: program, subject: subject, failed: failed.baseAddress!, failedCount: cells.partialValue).match(from: 0, at: 0)
                    }
                }
                return Search(run: self, tokens: program, subject: subject, failed: nil, failedCount: 0).match(from: 0, at: 0)
            case .everything:
                return true
            case .never:
                return false
            }
        }

        /// `ComponentPattern.matches`, once the quick reject has passed.
        @inline(__always)
        func matches(_ rulePointer: UnsafePointer<Rule>, _ formPointer: UnsafePointer<Form>) -> Bool {
            let rule = rulePointer.pointee, form = formPointer.pointee
            if rule.neverMatches { return false }
            if rule.path >= 0, !pathMatches(rule, form.path) { return false }
            switch rule.query {
            case .anything: break
            case .whole:
                if !matches(rule.queryPattern, form.query) { return false }
            case .items:
                if !itemsMatch(rule, form) { return false }
            }
            if rule.fragment >= 0, !matches(rule.fragment, form.fragment) { return false }
            return true
        }

        /// `ComponentPattern.pathMatches`: the path without its trailing slashes.
        func pathMatches(_ rule: Rule, _ path: UnsafeBufferPointer<UInt8>) -> Bool {
            let bare = UnsafeBufferPointer(rebasing: path[..<ComponentPattern.withoutTrailingSlashes(path)])
            if matches(rule.path, bare) { return true }
            if rule.pathWithoutSlashStar >= 0, matches(rule.pathWithoutSlashStar, bare) { return true }
            return false
        }

        /// Every named item matches (an absent one as the empty string). The raw query is split
        /// at `&` and `=` as `MatchSubject.splitItems` does, and each name and value then
        /// transformed to the form, into `itemScratch`.
        func itemsMatch(_ rule: Rule, _ form: Form) -> Bool {
            let query = rawQuery
            for k in rule.itemStart..<(rule.itemStart + rule.itemCount) {
                let item = items[k]
                let name = UnsafeBufferPointer(rebasing: literals[item.nameStart..<(item.nameStart + item.nameCount)])
                var seen = false
                var start = 0
                while start < query.count {
                    var end = start
                    while end < query.count, query[end] != UInt8(ascii: "&") { end += 1 }
                    if end > start {
                        var equals = start
                        while equals < end, query[equals] != UInt8(ascii: "=") { equals += 1 }
                        let rawName = UnsafeBufferPointer(rebasing: query[start..<equals])
                        let rawValue = equals < end ? UnsafeBufferPointer(rebasing: query[(equals + 1)..<end]) : UnsafeBufferPointer(start: nil, count: 0)
                        if withTransformed(rawName, form, itemScratch, { Self.equal($0, name) }) {
                            seen = true
                            guard withTransformed(rawValue, form, itemScratch + itemScratchCount, { matches(item.pattern, $0) }) else { return false }
                        }
                    }
                    start = end + 1
                }
                if !seen && !matches(item.pattern, UnsafeBufferPointer(start: nil, count: 0)) { return false }
            }
            return true
        }

        @inline(__always)
        func withTransformed(_ raw: UnsafeBufferPointer<UInt8>, _ form: Form, _ scratch: UnsafeMutablePointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
            if !form.decode && !form.fold { return body(raw) }
            if let count = MatchProgram.transform(raw, decode: form.decode, fold: form.fold, into: scratch) {
                return body(UnsafeBufferPointer(start: scratch, count: count))
            }
            return MatchProgram.slowTransform(raw, decode: form.decode, fold: form.fold).withUnsafeBufferPointer(body)
        }

        @inline(__always)
        static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard a.count == b.count else { return false }
            var i = 0
            while i < a.count {
                if a[i] != b[i] { return false }
                i += 1
            }
            return true
        }
    }
}
