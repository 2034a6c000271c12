/// An app's claim on a domain's URLs, the input of `AssociationGenerator`.
public struct AppRegistration: Sendable, Equatable {
    /// The apps (`TEAMID.bundle.id`) that share these rules.
    public var appIDs: [String]
    /// Path patterns that open the apps, e.g. `/ulc/*`.
    public var paths: [String]
    /// Path patterns that must stay in the browser even though a path above covers them.
    public var excludedPaths: [String]

    public init(appIDs: [String], paths: [String], excludedPaths: [String] = []) {
        self.appIDs = appIDs
        self.paths = paths
        self.excludedPaths = excludedPaths
    }
}

/// A generated file that failed its own validation.
public struct GeneratedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var report: ValidationReport
    public var description: String {
        "the generated file is not valid: " + report.errors.map(\.description).joined(separator: "; ")
    }
}

/// Builds minimal, valid association files from app registrations.
public enum AssociationGenerator {
    /// An `apple-app-site-association` in the iOS 13+ components format.
    ///
    /// Exclusions come first (first match wins), then the paths. With `includeLegacyPaths`, each
    /// app also gets an iOS 9–12 entry (`appID` + `paths` with `NOT ` exclusions) and `apps: []`.
    /// The result is validated; an invalid input (a bad app ID, say) throws with the report.
    public static func appleFile(for registrations: [AppRegistration], webCredentials: [String] = [], includeLegacyPaths: Bool = false) throws(GeneratedFileError) -> JSONValue {
        var details: [JSONValue] = []
        for registration in registrations {
            var components: [JSONValue] = registration.excludedPaths.map { .object([("/", .string($0)), ("exclude", .bool(true))]) }
            components += registration.paths.map { .object([("/", .string($0))]) }
            details.append(.object([
                ("appIDs", .array(registration.appIDs.map(JSONValue.string))),
                ("components", .array(components)),
            ]))
        }
        if includeLegacyPaths {
            for registration in registrations {
                let paths = registration.excludedPaths.map { JSONValue.string("NOT " + $0) } + registration.paths.map(JSONValue.string)
                for appID in registration.appIDs {
                    details.append(.object([("appID", .string(appID)), ("paths", .array(paths))]))
                }
            }
        }
        var appLinks: [(key: String, value: JSONValue)] = []
        if includeLegacyPaths { appLinks.append(("apps", .array([]))) }
        appLinks.append(("details", .array(details)))
        var top: [(key: String, value: JSONValue)] = [("applinks", .object(appLinks))]
        if !webCredentials.isEmpty {
            top.append(("webcredentials", .object([("apps", .array(webCredentials.map(JSONValue.string)))])))
        }
        let file = JSONValue.object(top)
        let report = AssociationValidator.validate(json: file)
        if report.hasErrors { throw GeneratedFileError(report: report) }
        return file
    }

    /// An `assetlinks.json` granting `handle_all_urls` to each Android app.
    public static func assetLinks(for statements: [AssetLinksStatement]) throws(GeneratedFileError) -> JSONValue {
        let file = AssetLinksFile(statements: statements).json
        let report = AssetLinksValidator.validate(json: file)
        if report.hasErrors { throw GeneratedFileError(report: report) }
        return file
    }
}
