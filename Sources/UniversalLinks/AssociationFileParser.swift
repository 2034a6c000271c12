/// Why an association file could not be read at all.
public enum AssociationFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON.
    case invalidJSON(JSONSyntaxError)
    /// The JSON is valid but its top level is not an object.
    case notAnObject(found: String)

    public var description: String {
        switch self {
        case .invalidJSON(let error):
            return "The association file is not valid JSON (\(error)); it must be one JSON object."
        case .notAnObject(let found):
            return "The association file's top level is \(found); it must be a JSON object such as {\"applinks\": {...}}."
        }
    }
}

/// Turns the bytes of an `apple-app-site-association` file into an `AssociationFile`.
///
/// Like iOS, it reads what it understands and skips the rest: unknown keys and values of the wrong
/// type are ignored (a wrongly typed pattern counts as absent). Run `AssociationValidator` to
/// hear about them.
public enum AssociationFileParser {
    /// Parses UTF-8 JSON bytes.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(AssociationFileError) -> AssociationFile where Bytes.Element == UInt8 {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw .invalidJSON(error)
        }
        return try parse(json: json)
    }

    /// Parses a JSON text.
    public static func parse(text: String) throws(AssociationFileError) -> AssociationFile {
        try parse(Array(text.utf8))
    }

    /// Builds the model from an already parsed JSON value.
    public static func parse(json: JSONValue) throws(AssociationFileError) -> AssociationFile {
        guard case .object = json else { throw .notAnObject(found: json.typeDescription) }
        var file = AssociationFile(json: json)
        if let appLinks = json["applinks"], case .object = appLinks {
            file.appLinks = parseAppLinks(appLinks)
        }
        file.webCredentials = parseAppList(json["webcredentials"])
        file.appClips = parseAppList(json["appclips"])
        return file
    }

    private static func parseAppList(_ value: JSONValue?) -> AppListSection? {
        guard let value, case .object = value else { return nil }
        return AppListSection(apps: value["apps"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    private static func parseAppLinks(_ value: JSONValue) -> AppLinksSection {
        var section = AppLinksSection()
        section.legacyApps = value["apps"]?.arrayValue
        section.defaults = parseOptions(value["defaults"])
        if let variables = value["substitutionVariables"]?.objectMembers {
            for (name, alternatives) in variables {
                guard let list = alternatives.arrayValue else { continue }
                section.substitutionVariables[name] = list.compactMap(\.stringValue)
            }
        }
        section.details = detailsEntries(value["details"]).compactMap(parseDetails)
        return section
    }

    /// `details` as a list of entries. The array is today's layout; the oldest one, which iOS
    /// still reads, is an object keyed by app ID, `{"TEAMID.bundle.id": {"paths": [...]}}` (Apple's
    /// example in WWDC 2015 session 509, "Seamless Linking to Your App"), read here as one entry
    /// per key, with that key as its `appID`, in the file's order.
    static func detailsEntries(_ value: JSONValue?) -> [JSONValue] {
        if let list = value?.arrayValue { return list }
        guard let members = value?.objectMembers else { return [] }
        return members.map { member in
            guard case .object(let fields) = member.value else { return member.value }
            return .object([(key: "appID", value: .string(member.key))] + fields.filter { $0.key != "appID" && $0.key != "appIDs" })
        }
    }

    static func parseOptions(_ value: JSONValue?) -> MatchingOptions {
        MatchingOptions(caseSensitive: value?["caseSensitive"]?.boolValue, percentEncoded: value?["percentEncoded"]?.boolValue)
    }

    private static func parseDetails(_ value: JSONValue) -> AppLinksDetails? {
        guard case .object = value else { return nil }
        var appIDs = value["appIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let single = value["appID"]?.stringValue, !appIDs.contains(single) { appIDs.append(single) }
        return AppLinksDetails(
            appIDs: appIDs,
            defaults: parseOptions(value["defaults"]),
            components: value["components"]?.arrayValue?.compactMap(parseComponent),
            legacyPaths: value["paths"]?.arrayValue?.compactMap(\.stringValue)
        )
    }

    static func parseComponent(_ value: JSONValue) -> Component? {
        guard case .object = value else { return nil }
        var query: QueryPattern?
        switch value["?"] {
        case .string(let pattern)?: query = .whole(pattern)
        case .object(let members)?: query = .items(members.map { QueryItemPattern(name: $0.key, pattern: $0.value.stringValue) })
        default: query = nil
        }
        return Component(
            path: value["/"]?.stringValue,
            query: query,
            fragment: value["#"]?.stringValue,
            exclude: value["exclude"]?.boolValue ?? false,
            comment: value["comment"]?.stringValue,
            options: parseOptions(value),
            json: value
        )
    }
}
