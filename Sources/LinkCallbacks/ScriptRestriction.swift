/// The "highly restrictive" level of Unicode Technical Standard #39 (Unicode Security
/// Mechanisms, section 5.2), applied to one host label: every letter comes from a single script,
/// or from one of the combinations a language writes together (Latin with Han, Hiragana and
/// Katakana for Japanese; Latin with Han and Bopomofo for Chinese; Latin with Han and Hangul for
/// Korean). Digits and the hyphen (script Common) and combining marks (Inherited) go with any.
///
/// `аpple` (a Cyrillic `а` before Latin `pple`) mixes two scripts and is refused; `яндекс` and
/// `bücher` are each one script and pass. Swift has no Script property, so the scripts are read
/// from the Unicode blocks that hold letters; a letter outside every listed block counts as a
/// script of its own, which errs on the side of refusing.
public enum ScriptRestriction {
    /// The scripts of the label's letters, in order of first appearance, when they mix in a way
    /// the highly restrictive level refuses; `nil` when the label passes.
    public static func mixedScripts<Scalars: Sequence<Unicode.Scalar>>(inLabel label: Scalars) -> [String]? {
        var scripts: [String] = []
        for scalar in label {
            guard let script = script(of: scalar), !scripts.contains(script) else { continue }
            scripts.append(script)
        }
        guard scripts.count > 1 else { return nil }
        let set = Set(scripts)
        let allowed: [Set<String>] = [
            ["Latin", "Han", "Hiragana", "Katakana"],
            ["Latin", "Han", "Bopomofo"],
            ["Latin", "Han", "Hangul"],
        ]
        return allowed.contains { set.isSubset(of: $0) } ? nil : scripts
    }

    /// The first label of `host` that mixes scripts, in Unicode, with its scripts; `nil` when
    /// none does. `xn--` labels are decoded first, so the ASCII form is caught too.
    public static func firstMixedLabel(in host: String) -> (label: String, scripts: [String])? {
        for label in host.lowercased().split(separator: ".") {
            var scalars = Array(label.unicodeScalars)
            if label.hasPrefix("xn--"), let decoded = Punycode.decode(String(label.dropFirst(4))) { scalars = decoded }
            if let scripts = mixedScripts(inLabel: scalars) {
                var text = ""
                text.unicodeScalars.append(contentsOf: scalars)
                return (text, scripts)
            }
        }
        return nil
    }

    /// The Unicode form of an ASCII host, `xn--` labels decoded, for showing beside it.
    public static func unicodeForm(of asciiHost: String) -> String {
        asciiHost.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.hasPrefix("xn--"), let decoded = Punycode.decode(String(label.dropFirst(4))) else { return String(label) }
            var text = ""
            text.unicodeScalars.append(contentsOf: decoded)
            return text
        }.joined(separator: ".")
    }

    /// The script of a letter, or `nil` for Common and Inherited characters (digits, the hyphen,
    /// combining marks), which go with any script.
    static func script(of scalar: Unicode.Scalar) -> String? {
        let value = scalar.value
        if scalar.isASCII {
            return scalar.isASCIILetter ? "Latin" : nil
        }
        for (range, name) in blocks where range.contains(value) { return name }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .decimalNumber, .dashPunctuation: return nil
        default: return "U+\(String(value, radix: 16, uppercase: true))"
        }
    }

    /// Blocks of letters by script (the Unicode Character Database's Blocks.txt, letter blocks
    /// only; Common and Inherited ranges first).
    private static let blocks: [(ClosedRange<UInt32>, String?)] = [
        (0x0300...0x036F, nil), (0x1AB0...0x1AFF, nil), (0x1DC0...0x1DFF, nil), (0x20D0...0x20FF, nil), (0xFE20...0xFE2F, nil),
        (0x200C...0x200D, nil), (0x30FC...0x30FC, nil), (0x3099...0x309C, nil),
        (0x00AA...0x00AA, "Latin"), (0x00BA...0x00BA, "Latin"), (0x00C0...0x024F, "Latin"), (0x0250...0x02AF, "Latin"),
        (0x1D00...0x1D7F, "Latin"), (0x1E00...0x1EFF, "Latin"), (0x2C60...0x2C7F, "Latin"), (0xA720...0xA7FF, "Latin"),
        (0xAB30...0xAB6F, "Latin"), (0xFF21...0xFF3A, "Latin"), (0xFF41...0xFF5A, "Latin"),
        (0x0370...0x03FF, "Greek"), (0x1F00...0x1FFF, "Greek"),
        (0x0400...0x052F, "Cyrillic"), (0x1C80...0x1C8F, "Cyrillic"), (0x2DE0...0x2DFF, "Cyrillic"), (0xA640...0xA69F, "Cyrillic"),
        (0x0530...0x058F, "Armenian"), (0x0590...0x05FF, "Hebrew"),
        (0x0600...0x06FF, "Arabic"), (0x0750...0x077F, "Arabic"), (0x08A0...0x08FF, "Arabic"), (0xFB50...0xFDFF, "Arabic"),
        (0xFE70...0xFEFF, "Arabic"), (0x0700...0x074F, "Syriac"), (0x0780...0x07BF, "Thaana"),
        (0x0900...0x097F, "Devanagari"), (0x0980...0x09FF, "Bengali"), (0x0A00...0x0A7F, "Gurmukhi"), (0x0A80...0x0AFF, "Gujarati"),
        (0x0B00...0x0B7F, "Oriya"), (0x0B80...0x0BFF, "Tamil"), (0x0C00...0x0C7F, "Telugu"), (0x0C80...0x0CFF, "Kannada"),
        (0x0D00...0x0D7F, "Malayalam"), (0x0D80...0x0DFF, "Sinhala"), (0x0E00...0x0E7F, "Thai"), (0x0E80...0x0EFF, "Lao"),
        (0x0F00...0x0FFF, "Tibetan"), (0x1000...0x109F, "Myanmar"), (0x10A0...0x10FF, "Georgian"), (0x2D00...0x2D2F, "Georgian"),
        (0x1100...0x11FF, "Hangul"), (0x3130...0x318F, "Hangul"), (0xAC00...0xD7AF, "Hangul"),
        (0x1200...0x139F, "Ethiopic"), (0x13A0...0x13FF, "Cherokee"), (0x1780...0x17FF, "Khmer"), (0x1800...0x18AF, "Mongolian"),
        (0x3040...0x309F, "Hiragana"), (0x30A0...0x30FF, "Katakana"), (0x31F0...0x31FF, "Katakana"), (0xFF66...0xFF9F, "Katakana"),
        (0x3100...0x312F, "Bopomofo"), (0x31A0...0x31BF, "Bopomofo"),
        (0x2E80...0x2FDF, "Han"), (0x3005...0x3007, "Han"), (0x3021...0x3029, "Han"), (0x3038...0x303B, "Han"),
        (0x3400...0x4DBF, "Han"), (0x4E00...0x9FFF, "Han"), (0xF900...0xFAFF, "Han"), (0x20000...0x3FFFF, "Han"),
    ]
}
