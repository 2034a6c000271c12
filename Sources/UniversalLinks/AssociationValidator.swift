/// Finds what is wrong, or probably unintended, in an `apple-app-site-association` file.
///
/// Every finding has a JSON path and a sentence. iOS tolerates much of what is reported here
/// (unknown keys, wrongly typed values are skipped), which is exactly why a silent mistake is
/// worth a report.
public enum AssociationValidator {
    /// The largest file iOS accepts, in bytes (uncompressed).
    public static let maximumSize = 128 * 1024

    static let topLevelKeys: Set<String> = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
    static let appLinksKeys: Set<String> = ["apps", "details", "defaults", "substitutionVariables"]
    static let detailsKeys: Set<String> = ["appID", "appIDs", "components", "paths", "defaults"]
    static let componentKeys: Set<String> = ["/", "?", "#", "exclude", "comment", "caseSensitive", "percentEncoded"]
    static let defaultsKeys: Set<String> = ["caseSensitive", "percentEncoded"]

    /// Validates the bytes of a file.
    public static func validate<Bytes: Collection>(_ bytes: Bytes) -> ValidationReport where Bytes.Element == UInt8 {
        var report = ValidationReport()
        if bytes.count > maximumSize {
            report.add(.error, "$", "the file is \(bytes.count) bytes; iOS reads at most \(maximumSize) bytes (128 KB) uncompressed, so shorten it, for example with wildcards or substitution variables")
        }
        do {
            let json = try JSONParser.parse(bytes)
            return report.appending(validate(json: json))
        } catch {
            report.add(.error, "$", "the file is not valid JSON: \(error.reason) (line \(error.line), column \(error.column)); it must be one JSON object")
            return report
        }
    }

    /// Validates a file already parsed as JSON.
    public static func validate(json: JSONValue) -> ValidationReport {
        var report = ValidationReport()
        guard let members = json.objectMembers else {
            report.add(.error, "$", "the top level is \(json.typeDescription); it must be a JSON object such as {\"applinks\": {...}}")
            return report
        }
        checkKeys(members, known: topLevelKeys, at: "$", in: "the top level", &report)
        if json["applinks"] == nil && json["webcredentials"] == nil && json["appclips"] == nil {
            report.add(.warning, "$", "the file has no applinks, webcredentials or appclips section, so it associates nothing")
        }
        if let appLinks = json["applinks"] { validateAppLinks(appLinks, &report) }
        for section in ["webcredentials", "appclips"] {
            guard let value = json[section] else { continue }
            validateAppList(value, at: "$.\(section)", &report)
        }
        return report
    }

    private static func checkKeys(_ members: [(key: String, value: JSONValue)], known: Set<String>, at location: String, in place: String, _ report: inout ValidationReport) {
        var seen = Set<String>()
        for (key, _) in members {
            if !seen.insert(key).inserted {
                report.add(.warning, "\(location).\(key)", "the key \"\(key)\" appears more than once in \(place); only the last one counts")
            }
            if !known.contains(key) {
                let accepted = known.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                report.add(.warning, "\(location)[\"\(key)\"]", "unknown key \"\(key)\" in \(place) is ignored by iOS; known keys are \(accepted)")
            }
        }
    }

    private static func validateAppList(_ value: JSONValue, at location: String, _ report: inout ValidationReport) {
        guard let members = value.objectMembers else {
            report.add(.error, location, "this section is \(value.typeDescription); it must be an object {\"apps\": [\"TEAMID.bundle.id\"]}")
            return
        }
        checkKeys(members, known: ["apps"], at: location, in: "this section", &report)
        guard let apps = value["apps"]?.arrayValue else {
            report.add(.error, "\(location).apps", "\"apps\" is missing or not an array; list app IDs such as \"ABCDE12345.com.example.app\"")
            return
        }
        for (i, app) in apps.enumerated() {
            checkAppID(app, at: "\(location).apps[\(i)]", &report)
        }
    }

    private static func checkAppID(_ value: JSONValue, at location: String, _ report: inout ValidationReport) {
        guard let text = value.stringValue else {
            report.add(.error, location, "an app ID must be a string, not \(value.typeDescription)")
            return
        }
        if let problem = AppIdentifier.problem(with: text) { report.add(.error, location, problem) }
    }

    private static func validateOptions(_ value: JSONValue, at location: String, checkUnknown: Bool, _ report: inout ValidationReport) {
        for key in defaultsKeys {
            if let option = value[key], option.boolValue == nil {
                report.add(.error, "\(location).\(key)", "\"\(key)\" is \(option.typeDescription); it must be true or false, and iOS ignores it otherwise")
            }
        }
        if checkUnknown, let members = value.objectMembers {
            checkKeys(members, known: defaultsKeys, at: location, in: "defaults", &report)
        }
    }

    private static func validateAppLinks(_ appLinks: JSONValue, _ report: inout ValidationReport) {
        let location = "$.applinks"
        guard let members = appLinks.objectMembers else {
            report.add(.error, location, "applinks is \(appLinks.typeDescription); it must be an object with \"details\"")
            return
        }
        checkKeys(members, known: appLinksKeys, at: location, in: "applinks", &report)
        if let apps = appLinks["apps"] {
            if apps != .array([]) {
                report.add(.error, "\(location).apps", "the legacy \"apps\" key must be exactly [] (an empty array); iOS 9–12 reject the section otherwise")
            }
        }
        if let defaults = appLinks["defaults"] {
            if case .object = defaults {
                validateOptions(defaults, at: "\(location).defaults", checkUnknown: true, &report)
            } else {
                report.add(.error, "\(location).defaults", "defaults is \(defaults.typeDescription); it must be an object such as {\"caseSensitive\": false}")
            }
        }
        var variables: [String: [String]] = [:]
        if let substitution = appLinks["substitutionVariables"] {
            let at = "\(location).substitutionVariables"
            if let list = substitution.objectMembers {
                for (name, value) in list {
                    if name.contains(where: { $0 == "$" || $0 == "(" || $0 == ")" }) || name.isEmpty {
                        report.add(.error, "\(at)[\"\(name)\"]", "the variable name \"\(name)\" is not usable; a name is non-empty and has no \"$\", \"(\" or \")\"")
                    }
                    if SubstitutionVariables.builtInNames.contains(name) {
                        report.add(.warning, "\(at).\(name)", "\"\(name)\" redefines a built-in variable; this file's definition is used instead of Apple's")
                    }
                    guard let alternatives = value.arrayValue, alternatives.allSatisfy({ $0.stringValue != nil }) else {
                        report.add(.error, "\(at).\(name)", "a substitution variable must be an array of strings, not \(value.typeDescription)")
                        continue
                    }
                    let strings = alternatives.compactMap(\.stringValue)
                    if strings.isEmpty {
                        report.add(.warning, "\(at).\(name)", "\"\(name)\" has no values, so $(\(name)) never matches")
                    }
                    for (i, s) in strings.enumerated() where s.contains("$(") {
                        report.add(.error, "\(at).\(name)[\(i)]", "a variable's value cannot use another variable; write the text out instead")
                    }
                    variables[name] = strings
                }
            } else {
                report.add(.error, at, "substitutionVariables is \(substitution.typeDescription); it must be an object of name → array of strings")
            }
        }
        let fileDefaults = AssociationFileParser.parseOptions(appLinks["defaults"])
        guard let details = appLinks["details"] else {
            report.add(.warning, location, "applinks has no \"details\", so no URL opens an app")
            return
        }
        var usesLegacyPaths = false
        if let members = details.objectMembers {
            report.add(.warning, "\(location).details", "details is an object keyed by app ID, the oldest layout (iOS 9); iOS still reads it, but it is deprecated: "
                       + "write an array of entries, [{\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [{\"/\": \"/path/*\"}]}], with {\"appID\": …, \"paths\": […]} entries beside them for iOS 9–12")
            for (key, entry) in zip(members.map(\.key), AssociationFileParser.detailsEntries(details)) {
                validateDetails(entry, at: "\(location).details[\"\(key)\"]", fileDefaults: fileDefaults, variables: SubstitutionVariables(variables),
                                usesLegacyPaths: &usesLegacyPaths, &report)
            }
            if usesLegacyPaths && appLinks["apps"] == nil {
                report.add(.warning, location, "the file uses legacy \"paths\" but has no \"apps\": []; iOS 9–12 need \"apps\": [] in applinks")
            }
            return
        }
        guard let detailsList = details.arrayValue else {
            report.add(.error, "\(location).details", "details is \(details.typeDescription); it must be an array of objects with \"appIDs\" and \"components\"")
            return
        }
        if detailsList.isEmpty {
            report.add(.warning, "\(location).details", "details is empty, so no URL opens an app; add an entry such as {\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [{\"/\": \"/path/*\"}]}")
        }
        for (d, entry) in detailsList.enumerated() {
            let at = "\(location).details[\(d)]"
            validateDetails(entry, at: at, fileDefaults: fileDefaults, variables: SubstitutionVariables(variables), usesLegacyPaths: &usesLegacyPaths, &report)
        }
        if usesLegacyPaths && appLinks["apps"] == nil {
            report.add(.warning, location, "the file uses legacy \"paths\" but has no \"apps\": []; iOS 9–12 need \"apps\": [] in applinks")
        }
    }

    private static func validateDetails(_ entry: JSONValue, at location: String, fileDefaults: MatchingOptions, variables: SubstitutionVariables, usesLegacyPaths: inout Bool, _ report: inout ValidationReport) {
        guard let members = entry.objectMembers else {
            report.add(.error, location, "a details entry is \(entry.typeDescription); it must be an object with \"appIDs\" and \"components\"")
            return
        }
        checkKeys(members, known: detailsKeys, at: location, in: "a details entry", &report)
        let appIDs = entry["appIDs"], appID = entry["appID"]
        if appIDs == nil && appID == nil {
            report.add(.error, location, "this entry names no app; add \"appIDs\": [\"TEAMID.bundle.id\"]")
        }
        if let appIDs {
            if let list = appIDs.arrayValue {
                if list.isEmpty { report.add(.warning, "\(location).appIDs", "appIDs is empty, so this entry applies to no app") }
                for (i, id) in list.enumerated() { checkAppID(id, at: "\(location).appIDs[\(i)]", &report) }
            } else {
                report.add(.error, "\(location).appIDs", "appIDs is \(appIDs.typeDescription); it must be an array of app ID strings")
            }
        }
        if let appID { checkAppID(appID, at: "\(location).appID", &report) }
        if let single = appID?.stringValue, let list = appIDs?.arrayValue, entry["paths"] == nil {
            let named = list.contains { $0.stringValue == single }
            report.add(.warning, location, "this entry has both \"appID\" and \"appIDs\"; iOS 13 and later read only appIDs"
                       + (named ? ", so appID is redundant: remove it" : ", so \(single) gets nothing from this entry on them: add it to appIDs, or move appID to an entry of its own with legacy \"paths\""))
        }
        if let defaults = entry["defaults"] {
            if case .object = defaults {
                validateOptions(defaults, at: "\(location).defaults", checkUnknown: true, &report)
            } else {
                report.add(.error, "\(location).defaults", "defaults is \(defaults.typeDescription); it must be an object such as {\"percentEncoded\": false}")
            }
        }
        let detailsOptions = AssociationFileParser.parseOptions(entry["defaults"]).overriding(fileDefaults)
        let components = entry["components"], paths = entry["paths"]
        if components != nil && paths != nil {
            report.add(.warning, location, "this entry mixes formats: it has both \"components\" (iOS 13+) and \"paths\" (iOS 9–12); iOS 13+ ignores the paths here. Put the legacy paths in an entry of their own with \"appID\"")
        }
        if paths != nil && appIDs != nil && appID == nil {
            report.add(.warning, location, "this entry mixes formats: legacy \"paths\" are read by iOS 9–12, which only know \"appID\" (one string), not \"appIDs\"")
        }
        if components == nil && paths == nil {
            report.add(.warning, location, "this entry has neither \"components\" nor \"paths\", so it matches no URL")
        }
        if let paths {
            usesLegacyPaths = true
            if let list = paths.arrayValue {
                var catchAll: Int?
                for (i, item) in list.enumerated() {
                    let at = "\(location).paths[\(i)]"
                    guard let text = item.stringValue else {
                        report.add(.error, at, "a path must be a string, not \(item.typeDescription)")
                        continue
                    }
                    if let catchAll {
                        report.add(.warning, at, "this path is never reached: paths[\(catchAll)] already decides every URL")
                        continue
                    }
                    let pattern = text.hasPrefix("NOT ") ? String(text.dropFirst(4)) : text
                    if pattern == "*" || pattern == "/*" { catchAll = i }
                    checkPattern(pattern, at: at, percentEncoded: true, variables: nil, &report)
                    checkSlashes(pattern, at: at, &report)
                }
            } else {
                report.add(.error, "\(location).paths", "paths is \(paths.typeDescription); it must be an array of strings")
            }
        }
        if let components {
            guard let list = components.arrayValue else {
                report.add(.error, "\(location).components", "components is \(components.typeDescription); it must be an array of objects such as {\"/\": \"/buy/*\"}")
                return
            }
            var catchAll: Int?
            var seen: [String: Int] = [:]
            for (i, component) in list.enumerated() {
                let at = "\(location).components[\(i)]"
                validateComponent(component, at: at, detailsOptions: detailsOptions, variables: variables, &report)
                guard case .object = component else { continue }
                if let catchAll {
                    report.add(.warning, at, "this component is never reached: components[\(catchAll)] before it matches every URL")
                    continue
                }
                let text = component.compactText
                if let earlier = seen[text] {
                    report.add(.warning, at, "this component repeats components[\(earlier)] and is never reached")
                }
                seen[text] = seen[text] ?? i
                if isCatchAll(component) { catchAll = i }
            }
        }
    }

    /// A component whose every key matches anything.
    static func isCatchAll(_ component: JSONValue) -> Bool {
        func anything(_ value: JSONValue?) -> Bool {
            guard let value else { return true }
            guard let text = value.stringValue else { return false }
            return !text.isEmpty && text.allSatisfy { $0 == "*" } || text == "/*"
        }
        let query: Bool
        switch component["?"] {
        case nil: query = true
        case .string(let text)?: query = !text.isEmpty && text.allSatisfy { $0 == "*" }
        case .object(let members)?: query = members.contains { $0.value.stringValue == nil } || members.allSatisfy { $0.value.stringValue == "*" }
        default: query = false
        }
        return anything(component["/"]) && query && anything(component["#"])
    }

    private static func validateComponent(_ component: JSONValue, at location: String, detailsOptions: MatchingOptions, variables: SubstitutionVariables, _ report: inout ValidationReport) {
        guard let members = component.objectMembers else {
            report.add(.error, location, "a component is \(component.typeDescription); it must be an object such as {\"/\": \"/buy/*\"}")
            return
        }
        checkKeys(members, known: componentKeys, at: location, in: "a component", &report)
        validateOptions(component, at: location, checkUnknown: false, &report)
        let options = AssociationFileParser.parseOptions(component).overriding(detailsOptions)
        let percentEncoded = options.percentEncoded ?? true
        if let exclude = component["exclude"], exclude.boolValue == nil {
            report.add(.error, "\(location).exclude", "\"exclude\" is \(exclude.typeDescription); it must be true or false, and iOS treats anything else as false")
        }
        if let comment = component["comment"], comment.stringValue == nil {
            report.add(.warning, "\(location).comment", "\"comment\" should be a string, not \(comment.typeDescription)")
        }
        for key in ["/", "#"] {
            guard let value = component[key] else { continue }
            let at = "\(location)[\"\(key)\"]"
            if let text = value.stringValue {
                checkPattern(text, at: at, percentEncoded: percentEncoded, variables: variables, &report)
                if key == "/" { checkSlashes(text, at: at, &report) }
            } else {
                report.add(.error, at, "the \"\(key)\" pattern is \(value.typeDescription); it must be a string, and iOS ignores it otherwise (as if it were \"*\")")
            }
        }
        if let query = component["?"] {
            let at = "\(location)[\"?\"]"
            switch query {
            case .string(let text):
                checkPattern(text, at: at, percentEncoded: percentEncoded, variables: variables, &report)
            case .object(let items):
                for (name, value) in items {
                    if let text = value.stringValue {
                        checkPattern(text, at: "\(at)[\"\(name)\"]", percentEncoded: percentEncoded, variables: variables, &report)
                    } else {
                        report.add(.warning, "\(at)[\"\(name)\"]", "the query item \"\(name)\" has \(value.typeDescription) as its pattern; iOS then lets the whole query dictionary match anything. Use a string pattern such as \"*\"")
                    }
                }
            default:
                report.add(.error, at, "the \"?\" pattern is \(query.typeDescription); it must be a string (the whole query) or an object of item name → pattern, and iOS ignores it otherwise")
            }
        }
    }

    /// Advises where iOS reads a path pattern's slashes differently from how they are written.
    private static func checkSlashes(_ text: String, at location: String, _ report: inout ValidationReport) {
        let normalized = ComponentPattern.normalizedPath(text)
        guard !text.isEmpty, normalized != text else { return }
        report.add(.advice, location, "iOS reads the path pattern \"\(text)\" as \"\(normalized)\": a leading run of slashes is one slash and trailing slashes are dropped (a URL's own are ignored too, so \"/buy/\" matches /buy, /buy/ and /buy//). Write \"\(normalized)\" to say what iOS does")
    }

    /// Reports undefined variables and patterns that can never match.
    private static func checkPattern(_ text: String, at location: String, percentEncoded: Bool, variables: SubstitutionVariables?, _ report: inout ValidationReport) {
        if variables != nil, let open = text.range(of: "$(", options: .backwards), !text[open.upperBound...].contains(")") {
            report.add(.warning, location, "\"\(text)\" has \"$(\" with no closing \")\", so it is no substitution variable: the pattern matches the literal text \"$(\" only. Close it, as in $(lang), if a variable was meant")
        }
        if let variables {
            for name in SubstitutionVariables.references(in: text) where variables.alternatives(for: name) == nil {
                report.add(.error, location, "$(\(name)) is not defined; define it in applinks.substitutionVariables or use a built-in (\(SubstitutionVariables.builtInNames.map { "$(\($0))" }.joined(separator: " "))). A pattern with an undefined variable never matches")
            }
        }
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%") {
                let escaped = i + 2 < bytes.count && hexValue(bytes[i + 1]) != nil && hexValue(bytes[i + 2]) != nil
                if percentEncoded && !escaped {
                    report.add(.warning, location, "\"\(text)\" has a \"%\" that does not start a %XX escape; with percentEncoded true a valid URL never contains it, so the pattern never matches. Write %25 for a literal percent sign")
                    return
                }
                if !percentEncoded && escaped {
                    let escape = String(decoding: bytes[i..<(i + 3)], as: UTF8.self)
                    report.add(.warning, location, "\"\(text)\" contains the escape \(escape), but percentEncoded is false: the URL is decoded before comparison, so this only matches the literal text \"\(escape)\" and normally never matches. Write the decoded character instead, or set percentEncoded to true")
                    return
                }
            } else if percentEncoded && (byte >= 0x80 || byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "^") || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "|") || byte == UInt8(ascii: "}")) {
                report.add(.warning, location, "\"\(text)\" contains a character that a URL always carries percent-encoded; with percentEncoded true (the default) the pattern never matches. Write it %XX-encoded, or set percentEncoded to false")
                return
            }
            i += 1
        }
    }
}
