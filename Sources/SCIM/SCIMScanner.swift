/// A cursor over a text's Unicode scalars, shared by the parsers of attribute paths, filters and
/// PATCH paths. Positions in errors are 1-based scalar offsets ("character 7").
struct SCIMScanner {
    let scalars: [Unicode.Scalar]
    var index: Int = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    var atEnd: Bool { index >= scalars.count }
    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    /// The 1-based position of the next scalar.
    var position: Int { index + 1 }

    func peek(at offset: Int) -> Unicode.Scalar? {
        let at = index + offset
        return at >= 0 && at < scalars.count ? scalars[at] : nil
    }

    /// Skips spaces; returns how many.
    @discardableResult mutating func skipSpaces() -> Int {
        var count = 0
        while let scalar = peek, scalar == " " { index += 1; count += 1 }
        return count
    }

    /// The ASCII letters from here (not consumed).
    func word(at start: Int? = nil) -> String {
        var at = start ?? index
        var text = ""
        while at < scalars.count, scalars[at].isASCIILetter { text.unicodeScalars.append(scalars[at]); at += 1 }
        return text
    }

    /// Consumes scalars while `accept` holds and returns them.
    mutating func take(while accept: (Unicode.Scalar) -> Bool) -> String {
        var text = ""
        while let scalar = peek, accept(scalar) { text.unicodeScalars.append(scalar); index += 1 }
        return text
    }

    /// How a scalar shows in an error: `'x'`, or its code point when invisible.
    static func show(_ scalar: Unicode.Scalar?) -> String {
        guard let scalar else { return "the end" }
        if scalar.value < 0x21 || scalar.value == 0x7F { return "U+" + String(scalar.value, radix: 16, uppercase: true) }
        return "'\(Character(scalar))'"
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    /// RFC 7644 §3.10 `nameChar`.
    var isNameCharacter: Bool { isASCIILetter || isASCIIDigit || self == "-" || self == "_" }
}
