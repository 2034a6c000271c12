/// One AASA pattern (`/buy/*`, `?*`, `/$(lang)/item/???`), compiled once into a small program
/// and matched against UTF-8 bytes without regular expressions.
///
/// - `*` matches zero or more characters (it crosses `/`);
/// - `?` matches exactly one character (one Unicode scalar);
/// - `?*` therefore matches one or more;
/// - `$(name)` matches one of the variable's alternatives;
/// - everything else matches itself, byte for byte (letters without regard to case when the
///   pattern is compiled case-insensitive).
///
/// A pattern that names a variable that is not defined never matches anything.
public final class WildcardPattern: Sendable {
    enum Token: Sendable {
        /// Bytes `literals[start ..< start + length]`.
        case literal(start: Int, length: Int)
        /// `?`: one Unicode scalar.
        case one
        /// `*`: any run of scalars.
        case star
        /// `$(name)`: the alternatives in `variables[index]`.
        case variable(Int)
    }

    /// The pattern as written.
    public let source: String
    /// The first variable name that is not defined, if any: such a pattern never matches.
    public let undefinedVariable: String?
    /// True for `*` (and `**`...): the pattern matches everything.
    public let matchesEverything: Bool

    let tokens: [Token]
    let literals: [UInt8]
    let variables: [VariableAlternatives]
    /// Whether backtracking can revisit states (a `*` before the last token, or in an alternative),
    /// so the variable search needs its failure memo.
    let needsMemo: Bool

    /// Compiles `source`.
    /// - Parameters:
    ///   - source: the pattern as the association file writes it.
    ///   - caseSensitive: when false, literals are folded to lower case; match it against a
    ///     subject folded with `WildcardPattern.fold(_:)`.
    ///   - variables: the definitions `$(name)` refers to.
    public convenience init(_ source: String, caseSensitive: Bool = true, variables: SubstitutionVariables = SubstitutionVariables()) {
        self.init(source, caseSensitive: caseSensitive, variables: variables, allowVariables: true)
    }

    init(_ source: String, caseSensitive: Bool, variables: SubstitutionVariables, allowVariables: Bool) {
        self.source = source
        var tokens: [Token] = []
        var literals: [UInt8] = []
        var compiledVariables: [VariableAlternatives] = []
        var undefined: String?
        var pending: [UInt8] = []

        func flushLiteral() {
            guard !pending.isEmpty else { return }
            let folded = caseSensitive ? pending : WildcardPattern.fold(pending)
            tokens.append(.literal(start: literals.count, length: folded.count))
            literals.append(contentsOf: folded)
            pending.removeAll(keepingCapacity: true)
        }

        let bytes = Array(source.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "*"):
                flushLiteral()
                if case .star? = tokens.last {} else { tokens.append(.star) }
                i += 1
            case UInt8(ascii: "?"):
                flushLiteral()
                tokens.append(.one)
                i += 1
            case UInt8(ascii: "$") where allowVariables && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "("):
                if let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ")")) {
                    flushLiteral()
                    let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
                    if let alternatives = variables.alternatives(for: name) {
                        tokens.append(.variable(compiledVariables.count))
                        compiledVariables.append(VariableAlternatives(alternatives, caseSensitive: caseSensitive))
                    } else if undefined == nil {
                        undefined = name
                    }
                    i = close + 1
                } else {
                    pending.append(byte)
                    i += 1
                }
            default:
                pending.append(byte)
                i += 1
            }
        }
        flushLiteral()
        self.tokens = tokens
        self.literals = literals
        self.variables = compiledVariables
        self.undefinedVariable = undefined
        let innerStar = tokens.dropLast().contains { if case .star = $0 { return true } else { return false } }
        let alternativeStar = compiledVariables.contains { variable in
            variable.alternatives.contains { $0.tokens.contains { if case .star = $0 { return true } else { return false } } }
        }
        needsMemo = innerStar || alternativeStar
        if tokens.count == 1, case .star = tokens[0] { matchesEverything = undefined == nil } else { matchesEverything = false }
    }

    /// Whether the pattern matches the whole of `text` (its UTF-8 bytes, not folded).
    public func matches(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { matches($0) }
    }

    /// Whether the pattern matches all of `subject`.
    public func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
        if undefinedVariable != nil { return false }
        if matchesEverything { return true }
        return literals.withUnsafeBufferPointer { literals in
            tokens.withUnsafeBufferPointer { tokens in
                if variables.isEmpty {
                    return Self.matchGlob(tokens, literals, subject)
                }
                var search = VariableSearch(pattern: self, tokens: tokens, literals: literals, subject: subject)
                return search.match(from: 0, at: 0)
            }
        }
    }

    /// Folds text for a case-insensitive comparison: ASCII letters to lower case, and anything
    /// beyond ASCII through Unicode lower-casing.
    public static func fold(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        return Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
    }

    /// The index just after the Unicode scalar that starts at `position`.
    @inline(__always)
    static func nextScalar(_ subject: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        var p = position + 1
        while p < subject.count && subject[p] & 0xC0 == 0x80 { p += 1 }
        return p
    }

    @inline(__always)
    static func literalMatches(_ literals: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int, _ subject: UnsafeBufferPointer<UInt8>, _ position: Int) -> Bool {
        guard position + length <= subject.count else { return false }
        var k = 0
        while k < length {
            if literals[start + k] != subject[position + k] { return false }
            k += 1
        }
        return true
    }

    /// Matches a program without variables: the classic glob walk that, on a mismatch, only
    /// re-tries the most recent `*` one scalar further. Linear space, no recursion.
    static func matchGlob(_ tokens: UnsafeBufferPointer<Token>, _ literals: UnsafeBufferPointer<UInt8>, _ subject: UnsafeBufferPointer<UInt8>) -> Bool {
        var t = 0, p = 0
        var starToken = -1, starPosition = 0
        while true {
            if t == tokens.count && p == subject.count { return true }
            if t < tokens.count {
                switch tokens[t] {
                case .star:
                    starToken = t
                    starPosition = p
                    t += 1
                    continue
                case let .literal(start, length):
                    if literalMatches(literals, start, length, subject, p) {
                        p += length
                        t += 1
                        continue
                    }
                case .one:
                    if p < subject.count {
                        p = nextScalar(subject, p)
                        t += 1
                        continue
                    }
                case .variable:
                    return false
                }
            }
            // Mismatch: give the last star one more scalar, or fail.
            guard starToken >= 0, starPosition < subject.count else { return false }
            starPosition = nextScalar(subject, starPosition)
            p = starPosition
            t = starToken + 1
        }
    }
}

/// The compiled alternatives of one `$(name)`, indexed by their first byte.
struct VariableAlternatives: Sendable {
    let alternatives: [WildcardPattern]
    /// For each first byte, the alternatives that start with that literal byte.
    let byFirstByte: [[Int]]
    /// Alternatives that start with a wildcard or are empty: always tried.
    let unanchored: [Int]

    init(_ values: [String], caseSensitive: Bool) {
        var alternatives: [WildcardPattern] = []
        var byFirstByte = [[Int]](repeating: [], count: 256)
        var unanchored: [Int] = []
        for value in values {
            let pattern = WildcardPattern(value, caseSensitive: caseSensitive, variables: SubstitutionVariables(), allowVariables: false)
            let index = alternatives.count
            alternatives.append(pattern)
            if case let .literal(start, _)? = pattern.tokens.first {
                byFirstByte[Int(pattern.literals[start])].append(index)
            } else {
                unanchored.append(index)
            }
        }
        self.alternatives = alternatives
        self.byFirstByte = byFirstByte
        self.unanchored = unanchored
    }
}

/// A backtracking search for programs with variables. Failed (token, position) states of the
/// main program are remembered, so no state is explored twice.
private struct VariableSearch {
    let pattern: WildcardPattern
    let tokens: UnsafeBufferPointer<WildcardPattern.Token>
    let literals: UnsafeBufferPointer<UInt8>
    let subject: UnsafeBufferPointer<UInt8>
    var failed: [Bool]
    let width: Int

    init(pattern: WildcardPattern, tokens: UnsafeBufferPointer<WildcardPattern.Token>, literals: UnsafeBufferPointer<UInt8>, subject: UnsafeBufferPointer<UInt8>) {
        self.pattern = pattern
        self.tokens = tokens
        self.literals = literals
        self.subject = subject
        width = subject.count + 1
        let cells = (tokens.count + 1).multipliedReportingOverflow(by: width)
        failed = pattern.needsMemo && !cells.overflow && cells.partialValue <= 1 << 22 ? [Bool](repeating: false, count: cells.partialValue) : []
    }

    mutating func match(from startToken: Int, at startPosition: Int) -> Bool {
        let memo = startToken * width + startPosition
        if memo < failed.count && failed[memo] { return false }
        var t = startToken, p = startPosition
        var result = false
        walk: while true {
            if t == tokens.count { result = p == subject.count; break walk }
            switch tokens[t] {
            case let .literal(start, length):
                guard WildcardPattern.literalMatches(literals, start, length, subject, p) else { break walk }
                p += length
                t += 1
            case .one:
                guard p < subject.count else { break walk }
                p = WildcardPattern.nextScalar(subject, p)
                t += 1
            case .star:
                if t + 1 == tokens.count { result = true; break walk }
                var q = p
                while true {
                    if match(from: t + 1, at: q) { result = true; break walk }
                    if q >= subject.count { break walk }
                    q = WildcardPattern.nextScalar(subject, q)
                }
            case .variable(let v):
                let variable = pattern.variables[v]
                let next = t + 1
                if p < subject.count {
                    for a in variable.byFirstByte[Int(subject[p])] where alternative(variable.alternatives[a], at: p, then: next) {
                        result = true; break walk
                    }
                }
                for a in variable.unanchored where alternative(variable.alternatives[a], at: p, then: next) {
                    result = true; break walk
                }
                break walk
            }
        }
        if !result && memo < failed.count { failed[memo] = true }
        return result
    }

    /// Whether `alternative` matches at `position` such that the main program then matches from
    /// token `next` wherever the alternative ends.
    private mutating func alternative(_ alternative: WildcardPattern, at position: Int, then next: Int) -> Bool {
        alternative.literals.withUnsafeBufferPointer { altLiterals in
            alternative.tokens.withUnsafeBufferPointer { altTokens in
                continueAlternative(altTokens, altLiterals, 0, position, next)
            }
        }
    }

    private mutating func continueAlternative(_ altTokens: UnsafeBufferPointer<WildcardPattern.Token>, _ altLiterals: UnsafeBufferPointer<UInt8>, _ startToken: Int, _ startPosition: Int, _ next: Int) -> Bool {
        var t = startToken, p = startPosition
        while t < altTokens.count {
            switch altTokens[t] {
            case let .literal(start, length):
                guard WildcardPattern.literalMatches(altLiterals, start, length, subject, p) else { return false }
                p += length
            case .one:
                guard p < subject.count else { return false }
                p = WildcardPattern.nextScalar(subject, p)
            case .star:
                var q = p
                while true {
                    if continueAlternative(altTokens, altLiterals, t + 1, q, next) { return true }
                    if q >= subject.count { return false }
                    q = WildcardPattern.nextScalar(subject, q)
                }
            case .variable:
                return false
            }
            t += 1
        }
        return match(from: next, at: p)
    }
}
