/// The recursive-descent reader of RFC 7644 §3.4.2.2's filter grammar (Figure 1):
///
///     FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")"
///     valuePath = attrPath "[" valFilter "]"
///     attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
///     logExp    = FILTER SP ("and" / "or") SP FILTER
///
/// `and` binds tighter than `or`, both associate to the left; keywords are read ignoring case
/// (ABNF strings are case-insensitive) and one or more spaces stand for `SP`. Nesting (brackets,
/// `not`, value paths) is bounded by ``maximumDepth`` and the text by ``maximumLength``, so a
/// hostile filter cannot exhaust the stack.
struct SCIMFilterParser {
    static let maximumDepth = 64
    static let maximumLength = 8192

    var scanner: SCIMScanner
    let text: String
    /// The error kind: `invalidFilter`, or `invalidPath` inside a PATCH path.
    let kind: SCIMError.Kind
    var depth = 0

    init(_ text: String, kind: SCIMError.Kind = .invalidFilter) {
        self.text = text
        self.kind = kind
        scanner = SCIMScanner(text)
    }

    func fail(_ what: String, at position: Int? = nil) -> SCIMError {
        SCIMError.bad(kind, "filter \"\(text)\": \(what) at character \(position ?? scanner.position) (RFC 7644 §3.4.2.2)")
    }

    /// Reads the whole text as one filter.
    mutating func parseWhole() throws(SCIMError) -> SCIMFilter {
        guard scanner.scalars.count <= Self.maximumLength else {
            throw SCIMError.bad(kind, "filter is \(scanner.scalars.count) characters long; at most \(Self.maximumLength) are accepted")
        }
        scanner.skipSpaces()
        let filter = try parseOr(inValuePath: false)
        scanner.skipSpaces()
        if let next = scanner.peek {
            throw fail("expected 'and', 'or' or the end but found \(SCIMScanner.show(next))")
        }
        return filter
    }

    mutating func parseOr(inValuePath: Bool) throws(SCIMError) -> SCIMFilter {
        var left = try parseAnd(inValuePath: inValuePath)
        while consumeKeyword("or") {
            left = .or(left, try parseAnd(inValuePath: inValuePath))
        }
        return left
    }

    mutating func parseAnd(inValuePath: Bool) throws(SCIMError) -> SCIMFilter {
        var left = try parseUnary(inValuePath: inValuePath)
        while consumeKeyword("and") {
            left = .and(left, try parseUnary(inValuePath: inValuePath))
        }
        return left
    }

    /// Consumes `SP+ keyword SP+` (or `SP+ keyword` before `(` or the end, which the next term
    /// then reports) when that is what follows.
    mutating func consumeKeyword(_ keyword: String) -> Bool {
        let start = scanner.index
        guard scanner.skipSpaces() > 0, scanner.word().lowercased() == keyword else { scanner.index = start; return false }
        let after = scanner.index + keyword.unicodeScalars.count
        let next = scanner.peek(at: keyword.unicodeScalars.count)
        guard next == nil || next == " " || next == "(" else {
            scanner.index = start
            return false
        }
        scanner.index = after
        scanner.skipSpaces()
        return true
    }

    mutating func enter() throws(SCIMError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
    }

    mutating func parseUnary(inValuePath: Bool) throws(SCIMError) -> SCIMFilter {
        if scanner.peek == "(" {
            try enter()
            scanner.index += 1
            let inner = try parseGrouped(inValuePath: inValuePath)
            depth -= 1
            return inner
        }
        let word = scanner.word()
        if word.lowercased() == "not" {
            var after = scanner.index + 3
            while after < scanner.scalars.count, scanner.scalars[after] == " " { after += 1 }
            if after < scanner.scalars.count, scanner.scalars[after] == "(" {
                try enter()
                scanner.index = after + 1
                let inner = try parseGrouped(inValuePath: inValuePath)
                depth -= 1
                return .not(inner)
            }
        }
        let pathStart = scanner.index
        let token = Array(scanner.take { !($0 == " " || $0 == "[" || $0 == "]" || $0 == "(" || $0 == ")" || $0 == "\"") }.unicodeScalars)
        if token.isEmpty {
            throw fail("expected an attribute path, 'not (' or '(' but found \(SCIMScanner.show(scanner.peek))")
        }
        let path = try SCIMAttributePath.parse(token, offset: pathStart, kind: kind, whole: text)
        if scanner.peek == "[" {
            if inValuePath { throw fail("a value filter cannot hold another '[' (valFilter has no valuePath)") }
            try enter()
            scanner.index += 1
            scanner.skipSpaces()
            let inner = try parseOr(inValuePath: true)
            scanner.skipSpaces()
            guard scanner.peek == "]" else { throw fail("expected ']' closing the value filter of '\(path)' but found \(SCIMScanner.show(scanner.peek))") }
            scanner.index += 1
            depth -= 1
            return .valuePath(path, inner)
        }
        guard scanner.skipSpaces() > 0 else {
            throw fail("expected a space and an operator after '\(path)' but found \(SCIMScanner.show(scanner.peek))")
        }
        let operatorStart = scanner.position
        let name = scanner.take { $0.isASCIILetter }.lowercased()
        if name == "pr" {
            return .present(path)
        }
        guard let comparison = SCIMComparison(rawValue: name) else {
            throw fail("expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) after '\(path)' but found "
                + (name.isEmpty ? SCIMScanner.show(scanner.peek) : "'\(name)'"), at: operatorStart)
        }
        guard scanner.skipSpaces() > 0 else {
            throw fail("expected a space and a value after '\(name)' but found \(SCIMScanner.show(scanner.peek))")
        }
        return .compare(path, comparison, try parseValue())
    }

    /// After `(`: a filter and `)`.
    mutating func parseGrouped(inValuePath: Bool) throws(SCIMError) -> SCIMFilter {
        scanner.skipSpaces()
        let inner = try parseOr(inValuePath: inValuePath)
        scanner.skipSpaces()
        guard scanner.peek == ")" else { throw fail("expected ')' but found \(SCIMScanner.show(scanner.peek))") }
        scanner.index += 1
        return inner
    }

    /// `compValue = false / null / true / number / string` (JSON's, RFC 8259).
    mutating func parseValue() throws(SCIMError) -> SCIMValue {
        guard let first = scanner.peek else { throw fail("expected a value (a JSON string, number, true, false or null) but found the end") }
        if first == "\"" { return .string(try parseString()) }
        if first == "-" || first.isASCIIDigit { return try parseNumber() }
        let start = scanner.position
        let word = scanner.take { $0.isASCIILetter }
        switch word.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default:
            throw fail("expected a value (a JSON string in double quotes, a number, true, false or null) but found "
                + (word.isEmpty ? SCIMScanner.show(first) : "'\(word)'"), at: start)
        }
    }

    mutating func parseNumber() throws(SCIMError) -> SCIMValue {
        let start = scanner.index
        var isInteger = true
        if scanner.peek == "-" { scanner.index += 1 }
        func digits() -> Int { scanner.take { $0.isASCIIDigit }.unicodeScalars.count }
        let integerStart = scanner.index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw fail("expected a digit in the number") }
        if integerDigits > 1, scanner.scalars[integerStart] == "0" { throw fail("a number cannot start with 0", at: integerStart + 1) }
        if scanner.peek == "." {
            isInteger = false
            scanner.index += 1
            guard digits() > 0 else { throw fail("expected a digit after '.' in the number") }
        }
        if scanner.peek == "e" || scanner.peek == "E" {
            isInteger = false
            scanner.index += 1
            if scanner.peek == "+" || scanner.peek == "-" { scanner.index += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the number's exponent") }
        }
        let literal = String(String.UnicodeScalarView(scanner.scalars[start..<scanner.index]))
        if isInteger, let integer = Int64(literal) { return .integer(integer) }
        guard let decimal = Double(literal), decimal.isFinite else {
            throw fail("the number \(literal) is out of range", at: start + 1)
        }
        return .decimal(decimal)
    }

    mutating func parseString() throws(SCIMError) -> String {
        let start = scanner.position
        scanner.index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = scanner.peek else { throw fail("the string starting at character \(start) is not closed with '\"'") }
            scanner.index += 1
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                guard let escaped = scanner.peek else { throw fail("the string starting at character \(start) ends inside an escape") }
                scanner.index += 1
                switch escaped {
                case "\"": text.append("\"")
                case "\\": text.append("\\")
                case "/": text.append("/")
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                case "u":
                    let high = try parseHex()
                    if (0xD800..<0xDC00).contains(high) {
                        guard scanner.peek == "\\", scanner.peek(at: 1) == "u" else { throw fail("a high surrogate \\u escape must be followed by a low one") }
                        scanner.index += 2
                        let low = try parseHex()
                        guard (0xDC00..<0xE000).contains(low), let combined = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                            throw fail("a high surrogate \\u escape must be followed by a low one")
                        }
                        text.append(combined)
                    } else if let single = Unicode.Scalar(high) {
                        text.append(single)
                    } else {
                        throw fail("a low surrogate \\u escape must follow a high one")
                    }
                default:
                    throw fail("\\\(Character(escaped)) is not a JSON escape (accepted: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: scanner.index)
                }
            default:
                guard scalar.value >= 0x20 else { throw fail("control character \(SCIMScanner.show(scalar)) must be escaped in a string", at: scanner.index) }
                text.append(scalar)
            }
        }
    }

    mutating func parseHex() throws(SCIMError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = scanner.peek, let digit = Int(String(Character(scalar)), radix: 16) else {
                throw fail("expected four hexadecimal digits after \\u")
            }
            value = value * 16 + UInt32(digit)
            scanner.index += 1
        }
        return value
    }
}
