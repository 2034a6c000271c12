import Foundation

/// The `$(name)` variables a pattern may use: the file's own and Apple's built-ins.
///
/// Each variable stands for a list of alternatives; `$(name)` matches any one of them. An
/// alternative may itself contain the `?` and `*` wildcards but no other variable.
public struct SubstitutionVariables: Sendable, Equatable {
    /// The names iOS defines itself.
    public static let builtInNames: [String] = ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"]

    /// The file's `applinks.substitutionVariables`.
    public var userDefined: [String: [String]]

    public init(_ userDefined: [String: [String]] = [:]) {
        self.userDefined = userDefined
    }

    /// The alternatives of a built-in variable, or nil when `name` is not a built-in.
    ///
    /// `alpha`, `upper`, `lower`, `alnum`, `digit` and `xdigit` each stand for one ASCII
    /// character of their class; `region` for an ISO 3166-1 alpha-2 code in upper case (`US`),
    /// `lang` for an ISO 639-1 code in lower case (`en`).
    public static func builtInAlternatives(_ name: String) -> [String]? {
        func characters(_ ranges: ClosedRange<UInt8>...) -> [String] {
            ranges.flatMap { $0.map { String(UnicodeScalar($0)) } }
        }
        switch name {
        case "alpha": return characters(0x41...0x5A, 0x61...0x7A)
        case "upper": return characters(0x41...0x5A)
        case "lower": return characters(0x61...0x7A)
        case "alnum": return characters(0x30...0x39, 0x41...0x5A, 0x61...0x7A)
        case "digit": return characters(0x30...0x39)
        case "xdigit": return characters(0x30...0x39, 0x41...0x46, 0x61...0x66)
        case "region": return ISOCodes.regions
        case "lang": return ISOCodes.languages
        default: return nil
        }
    }

    /// The alternatives of `name`: the file's definition if it has one, else the built-in, else nil.
    public func alternatives(for name: String) -> [String]? {
        userDefined[name] ?? Self.builtInAlternatives(name)
    }

    /// The names of the variables a pattern refers to, in order, as `$(name)`.
    public static func references(in pattern: String) -> [String] {
        var names: [String] = []
        var rest = Substring(pattern)
        while let start = rest.range(of: "$(") {
            let after = rest[start.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            names.append(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }
}
