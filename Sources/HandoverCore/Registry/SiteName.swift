import Foundation

/// A site's name (a ward, a hospital) as people write it: "Ward 7", "ICU", "Station Ä".
/// The one rule for every place a site is named: the registry and the API, the CSV import, the
/// list filter, role and site scoping (`HANDOVER_ADMIN_ROLE_MAP` and the grants stored with a
/// person or a session), and the lending periods (`HANDOVER_LENDING_PERIODS`, `--lending-period`).
///
/// - Spaces (and other white space) around it are dropped; it is kept and shown as written.
/// - 1 to ``maximumLength`` characters (Unicode code points, as JSON Schema's `maxLength` counts
///   them), of printable text: letters and digits of any script, spaces, punctuation, symbols.
///   Refused: control and format characters (tabs, line breaks, bidirectional overrides; the
///   zero-width joiners that some scripts and emoji need are kept), private-use, unassigned
///   code points, line and paragraph separators.
/// - None of `,` `=` `+` `@`: they separate sites in the settings that name them
///   (`ICU=9h,Ward 7=13h`; `icu-leads=operator@ICU+Ward 7`), so a name with one could not be
///   written there.
/// - Two names are the same site when they match ignoring case (full case folding, so `STRASSE`
///   is `Straße`) and Unicode normalisation: ``key`` is what is compared; the database keeps it
///   beside the name (`site_key`), so SQL compares the same way on SQLite and PostgreSQL.
public struct SiteName: Hashable, Sendable, CustomStringConvertible {
    /// 64 code points: the bound the API has declared for `site` since sites were added, long
    /// enough for a ward written in full ("Paediatric Intensive Care Unit, North Wing" is 43),
    /// short enough to sit in a table column, a CSV cell and a setting. At most 256 bytes of UTF-8.
    public static let maximumLength = 64
    /// The characters that separate sites in the settings that name them.
    public static let separators: Set<Unicode.Scalar> = [",", "=", "+", "@"]
    /// What a site name may be, as every refusal says it.
    public static let acceptedForm = "1 to \(maximumLength) characters of printable text (letters of any script, digits, spaces, punctuation), "
        + "without ',', '=', '+' or '@'; compared ignoring case"

    /// The name as written, white space around it dropped: what every page, CSV and receipt shows.
    public let text: String
    /// What two names are compared by: the text case-folded and in Unicode's composed form (NFC).
    public let key: String

    /// Reads a site name; throws a ``SiteNameError`` saying what is wrong with it.
    public init<Text: StringProtocol>(_ written: Text) throws(SiteNameError) {
        let text = written.trimmingCharacters(in: .whitespacesAndNewlines)
        func refuse(_ problem: String) -> SiteNameError { SiteNameError(text: String(written), problem: problem) }
        guard !text.isEmpty else { throw refuse("is empty") }
        let count = text.unicodeScalars.count
        guard count <= Self.maximumLength else { throw refuse("is \(count) characters long") }
        if let scalar = text.unicodeScalars.first(where: { Self.separators.contains($0) }) {
            throw refuse("has '\(scalar)', which separates sites in the settings that name them")
        }
        if let scalar = text.unicodeScalars.first(where: { !Self.isPrintable($0) }) {
            throw refuse("has the unprintable character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))")
        }
        self.text = text
        self.key = Self.key(of: text)
    }

    /// The comparison key of a name as stored, or as a form gives it (white space around it dropped).
    public static func key(of text: String) -> String {
        // Upper then lower case: Unicode's full case folding for what hospitals write (ß and SS,
        // final and medial sigma), which lowercasing alone misses.
        text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased().lowercased().precomposedStringWithCanonicalMapping
    }

    /// Whether a name as stored (a device's site) is this site.
    public func matches(_ stored: String?) -> Bool {
        stored.map { Self.key(of: $0) == key } ?? false
    }

    public var description: String { text }

    public static func == (left: SiteName, right: SiteName) -> Bool { left.key == right.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .privateUse, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator: false
        case .format: scalar == "\u{200C}" || scalar == "\u{200D}"  // zero-width non-joiner and joiner
        default: true
        }
    }
}

/// A site name that cannot be one: the text as given, what is wrong, and what is accepted.
public struct SiteNameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text as given (the first 80 characters are shown).
    public var text: String
    public var problem: String

    public var description: String {
        "'\(text.prefix(80))' is not a site name: it \(problem); a site name is \(SiteName.acceptedForm)"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
