/// Decides, the way iOS does, whether a URL opens an app, from one domain's association file.
///
/// Build it once per file; every pattern is compiled up front, so `decide` runs no regular
/// expression and allocates nothing per component in the common case.
///
/// ```swift
/// let file = try AssociationFileParser.parse(text: aasaJSON)
/// let matcher = AssociationMatcher(file: file, domain: "example.com")
/// matcher.decide(appID: "ABCDE12345.com.example.app", url: "https://example.com/buy/42")
/// // match by components[1] {"/":"/buy/*"}
/// ```
///
/// Rules, in order:
/// - a URL that is not `http(s)://` on the file's domain never matches;
/// - the details entries that list the app are tried in file order; within one, the first
///   component (or legacy path) that matches decides: `.match`, or `.exclude` when it excludes;
/// - a details entry with `components` ignores its legacy `paths`.
public struct AssociationMatcher: Sendable {
    /// The compiled rules, flattened (see `MatchProgram`), and the domain: the one reference
    /// a copy of the matcher retains.
    private let program: MatchProgram

    /// The domain the file is served from.
    public var domain: String { program.domain }

    /// Compiles `file` for URLs on `domain` (a host name, optionally with `:port`).
    public init(file: AssociationFile, domain: String) {
        program = MatchProgram(CompiledFile(file: file), domain: domain)
    }

    /// The apps the file names in `applinks.details`.
    public var appIDs: [String] { program.appIDs.sorted() }

    /// Decides `url` (an absolute URL string, taken as written) for the app `appID`
    /// (`TEAMID.bundle.id`).
    public func decide(appID: String, url: String) -> AssociationDecision {
        guard let app = program.app(appID) else { return Self.noMatch }
        // Split the string's own UTF-8 storage; copy only a string that has none (bridged).
        if let decision = url.utf8.withContiguousStorageIfAvailable({ decide(app: app, bytes: $0, url: nil) }) {
            return decision
        }
        var copy = url
        return copy.withUTF8 { decide(app: app, bytes: $0, url: nil) }
    }

    /// Whether `url` is an absolute URL with a host, the only kind ``decide(appID:url:)`` can
    /// claim (anything else is never a universal link).
    public static func canDecide(_ url: String) -> Bool { SplitURL(url) != nil }

    /// Decides an already split URL for the app `appID`.
    func decide(appID: String, url: SplitURL) -> AssociationDecision {
        guard let app = program.app(appID) else { return Self.noMatch }
        return url.bytes.withUnsafeBufferPointer { decide(app: app, bytes: $0, url: url.parts) }
    }

    private static let noMatch = AssociationDecision(outcome: .noMatch, rule: nil)

    /// `url`: the split of `bytes`, or nil to split them here.
    private func decide(app: Int, bytes: UnsafeBufferPointer<UInt8>, url: URLParts?) -> AssociationDecision {
        guard let url = url ?? URLParts(bytes) else { return Self.noMatch }
        let scheme = url.schemeRange
        guard Self.isHTTPScheme(UnsafeBufferPointer(rebasing: bytes[scheme])),
              url.isOnDomain(program.domainName, bytes: bytes, isHTTP: scheme.count == 4) else {
            return Self.noMatch
        }
        let index = program.firstMatch(app: app, bytes: bytes, url: url)
        guard index >= 0 else { return Self.noMatch }
        let rule = program.rules[index]
        return AssociationDecision(outcome: rule.exclude ? .exclude : .match, rule: program.decidingRules[rule.decidingRule])
    }

    /// Whether `scheme` is `http` or `https`, in any case.
    static func isHTTPScheme<Bytes: Collection<UInt8>>(_ scheme: Bytes) -> Bool {
        guard scheme.count == 4 || scheme.count == 5 else { return false }
        var offset = 0
        for byte in scheme {
            if byte | 0x20 != UInt8(truncatingIfNeeded: Self.https >> (8 * offset)) { return false }
            offset += 1
        }
        return true
    }

    /// `https`, one byte per octet, little-endian.
    private static let https: UInt64 = 0x73_70_74_74_68
}
