/// An Apple App Site Association file (`/.well-known/apple-app-site-association`), as iOS reads it.
///
/// Build one with `AssociationFileParser.parse(_:)`. The model is lenient like iOS: keys it does
/// not know, and values of the wrong type, are left out here and reported by
/// `AssociationValidator` instead.
public struct AssociationFile: Sendable, Equatable {
    /// The `applinks` section: which URLs open which apps.
    public var appLinks: AppLinksSection?
    /// The `webcredentials` section: apps that share passwords with this domain.
    public var webCredentials: AppListSection?
    /// The `appclips` section: App Clips that this domain may launch.
    public var appClips: AppListSection?
    /// The whole document as written.
    public var json: JSONValue

    public init(appLinks: AppLinksSection? = nil, webCredentials: AppListSection? = nil, appClips: AppListSection? = nil, json: JSONValue = .object([])) {
        self.appLinks = appLinks
        self.webCredentials = webCredentials
        self.appClips = appClips
        self.json = json
    }
}

/// A section that only lists app identifiers: `{"apps": ["TEAMID.bundle", ...]}`.
public struct AppListSection: Sendable, Equatable {
    public var apps: [String]
    public init(apps: [String]) { self.apps = apps }
}

/// The `applinks` section.
public struct AppLinksSection: Sendable, Equatable {
    /// The legacy `apps` key, which iOS 9–12 require to be `[]`. `nil` when absent.
    public var legacyApps: [JSONValue]?
    /// `applinks.defaults`: options for every component of every details entry.
    public var defaults: MatchingOptions
    /// `applinks.substitutionVariables`: name → alternatives, used in patterns as `$(name)`.
    public var substitutionVariables: [String: [String]]
    /// `applinks.details`, in order.
    public var details: [AppLinksDetails]

    public init(legacyApps: [JSONValue]? = nil, defaults: MatchingOptions = MatchingOptions(), substitutionVariables: [String: [String]] = [:], details: [AppLinksDetails] = []) {
        self.legacyApps = legacyApps
        self.defaults = defaults
        self.substitutionVariables = substitutionVariables
        self.details = details
    }
}

/// The two switches that change how a component compares a URL.
///
/// Each is optional at each level (file `defaults`, details `defaults`, component); the most
/// specific level that sets one wins, and both default to `true`.
public struct MatchingOptions: Sendable, Equatable {
    /// `caseSensitive`: when false, letters compare without regard to case.
    public var caseSensitive: Bool?
    /// `percentEncoded`: when true, the URL is compared as written; when false, it is
    /// percent-decoded first.
    public var percentEncoded: Bool?

    public init(caseSensitive: Bool? = nil, percentEncoded: Bool? = nil) {
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
    }

    /// These options, with anything they leave unset taken from `outer`.
    public func overriding(_ outer: MatchingOptions) -> MatchingOptions {
        MatchingOptions(caseSensitive: caseSensitive ?? outer.caseSensitive, percentEncoded: percentEncoded ?? outer.percentEncoded)
    }
}

/// One entry of `applinks.details`: some apps and the URLs they claim.
public struct AppLinksDetails: Sendable, Equatable {
    /// The apps this entry is for: `appIDs` and the legacy `appID`, together.
    public var appIDs: [String]
    /// `details[].defaults`.
    public var defaults: MatchingOptions
    /// The iOS 13+ `components`, in order; `nil` when the entry has none.
    public var components: [Component]?
    /// The legacy (iOS 9–12) `paths`, in order; `nil` when the entry has none. Only used when
    /// `components` is absent.
    public var legacyPaths: [String]?

    public init(appIDs: [String], defaults: MatchingOptions = MatchingOptions(), components: [Component]? = nil, legacyPaths: [String]? = nil) {
        self.appIDs = appIDs
        self.defaults = defaults
        self.components = components
        self.legacyPaths = legacyPaths
    }
}

/// One iOS 13+ component: patterns for the path, query and fragment, and whether a match excludes.
///
/// A key that is not given matches anything (it defaults to `*`).
public struct Component: Sendable, Equatable {
    /// `/`: the path pattern.
    public var path: String?
    /// `?`: the query pattern.
    public var query: QueryPattern?
    /// `#`: the fragment pattern.
    public var fragment: String?
    /// `exclude`: a URL that matches this component does not open the app.
    public var exclude: Bool
    /// `comment`: ignored by iOS.
    public var comment: String?
    /// `caseSensitive` and `percentEncoded` set on the component itself.
    public var options: MatchingOptions
    /// The component as written, for reports (`{"/":"/buy/*"}`).
    public var json: JSONValue

    public init(path: String? = nil, query: QueryPattern? = nil, fragment: String? = nil, exclude: Bool = false, comment: String? = nil, options: MatchingOptions = MatchingOptions(), json: JSONValue? = nil) {
        self.path = path
        self.query = query
        self.fragment = fragment
        self.exclude = exclude
        self.comment = comment
        self.options = options
        self.json = json ?? Component.makeJSON(path: path, query: query, fragment: fragment, exclude: exclude, comment: comment, options: options)
    }

    /// The JSON form of a component built in code.
    static func makeJSON(path: String?, query: QueryPattern?, fragment: String?, exclude: Bool, comment: String?, options: MatchingOptions) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let path { members.append(("/", .string(path))) }
        switch query {
        case .none: break
        case .whole(let pattern): members.append(("?", .string(pattern)))
        case .items(let items): members.append(("?", .object(items.map { ($0.name, $0.pattern.map(JSONValue.string) ?? .null) })))
        }
        if let fragment { members.append(("#", .string(fragment))) }
        if exclude { members.append(("exclude", .bool(true))) }
        if let comment { members.append(("comment", .string(comment))) }
        if let c = options.caseSensitive { members.append(("caseSensitive", .bool(c))) }
        if let p = options.percentEncoded { members.append(("percentEncoded", .bool(p))) }
        return .object(members)
    }
}

/// The `?` key of a component.
public enum QueryPattern: Sendable, Equatable {
    /// A string: a pattern that must match the whole query (the text after `?`, before `#`).
    case whole(String)
    /// A dictionary: each named item must match its pattern; items not named are ignored.
    case items([QueryItemPattern])
}

/// One entry of a query dictionary.
public struct QueryItemPattern: Sendable, Equatable {
    /// The query item's name.
    public var name: String
    /// The pattern every occurrence of the item must match. `nil` when the file gives a
    /// non-string value, which (as observed on iOS) makes the whole dictionary match anything.
    public var pattern: String?

    public init(name: String, pattern: String?) {
        self.name = name
        self.pattern = pattern
    }
}
