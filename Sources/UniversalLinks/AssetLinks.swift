/// Android's `/.well-known/assetlinks.json`: a list of statements that let apps handle a site's links.
public struct AssetLinksFile: Sendable, Equatable {
    /// The relation that lets an Android app open the site's URLs.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    public var statements: [AssetLinksStatement]

    public init(statements: [AssetLinksStatement]) { self.statements = statements }

    /// The file as JSON: one statement per app, `handle_all_urls`, `android_app` targets.
    public var json: JSONValue {
        .array(statements.map { statement in
            .object([
                ("relation", .array(statement.relations.map(JSONValue.string))),
                ("target", .object([
                    ("namespace", .string("android_app")),
                    ("package_name", .string(statement.packageName)),
                    ("sha256_cert_fingerprints", .array(statement.fingerprints.map(JSONValue.string))),
                ])),
            ])
        })
    }
}

/// One `android_app` statement.
public struct AssetLinksStatement: Sendable, Equatable {
    public var relations: [String]
    /// The Android application ID, e.g. `com.example.app`.
    public var packageName: String
    /// SHA-256 fingerprints of the signing certificates: 32 upper-case hex bytes joined by colons.
    public var fingerprints: [String]

    public init(relations: [String] = [AssetLinksFile.handleAllURLs], packageName: String, fingerprints: [String]) {
        self.relations = relations
        self.packageName = packageName
        self.fingerprints = fingerprints
    }
}

/// Finds what is wrong in an `assetlinks.json` file.
public enum AssetLinksValidator {
    /// Validates the bytes of a file.
    public static func validate<Bytes: Collection>(_ bytes: Bytes) -> ValidationReport where Bytes.Element == UInt8 {
        do {
            return validate(json: try JSONParser.parse(bytes))
        } catch {
            var report = ValidationReport()
            report.add(.error, "$", "the file is not valid JSON: \(error.reason) (line \(error.line), column \(error.column)); it must be a JSON array of statements")
            return report
        }
    }

    /// Validates a parsed file.
    public static func validate(json: JSONValue) -> ValidationReport {
        var report = ValidationReport()
        guard let statements = json.arrayValue else {
            report.add(.error, "$", "the top level is \(json.typeDescription); assetlinks.json must be a JSON array of statements")
            return report
        }
        var handlesURLs = false
        for (i, statement) in statements.enumerated() {
            let at = "$[\(i)]"
            guard case .object = statement else {
                report.add(.error, at, "a statement is \(statement.typeDescription); it must be an object with \"relation\" and \"target\"")
                continue
            }
            guard let relations = statement["relation"]?.arrayValue, relations.allSatisfy({ $0.stringValue != nil }) else {
                report.add(.error, "\(at).relation", "\"relation\" must be an array of strings such as [\"\(AssetLinksFile.handleAllURLs)\"]")
                continue
            }
            let handles = relations.contains(.string(AssetLinksFile.handleAllURLs))
            guard let target = statement["target"], case .object = target else {
                report.add(.error, "\(at).target", "\"target\" must be an object with \"namespace\", \"package_name\" and \"sha256_cert_fingerprints\"")
                continue
            }
            guard let namespace = target["namespace"]?.stringValue else {
                report.add(.error, "\(at).target.namespace", "\"namespace\" must be \"android_app\" (or \"web\")")
                continue
            }
            if namespace == "web" { continue }
            guard namespace == "android_app" else {
                report.add(.error, "\(at).target.namespace", "the namespace \"\(namespace)\" is unknown; use \"android_app\" for an app")
                continue
            }
            if handles { handlesURLs = true }
            if let name = target["package_name"]?.stringValue {
                if !isPackageName(name) {
                    report.add(.error, "\(at).target.package_name", "\"\(name)\" is not an Android package name; it is two or more dot-separated parts, each a letter followed by letters, digits or underscores, e.g. \"com.example.app\"")
                }
            } else {
                report.add(.error, "\(at).target.package_name", "\"package_name\" is missing or not a string; give the app's application ID, e.g. \"com.example.app\"")
            }
            guard let fingerprints = target["sha256_cert_fingerprints"]?.arrayValue, !fingerprints.isEmpty else {
                report.add(.error, "\(at).target.sha256_cert_fingerprints", "\"sha256_cert_fingerprints\" must be a non-empty array of SHA-256 fingerprints such as \"AB:CD:...\" (32 bytes)")
                continue
            }
            for (f, fingerprint) in fingerprints.enumerated() {
                if let problem = fingerprintProblem(fingerprint.stringValue) {
                    report.add(.error, "\(at).target.sha256_cert_fingerprints[\(f)]", problem)
                }
            }
        }
        if !handlesURLs {
            report.add(.error, "$", "no android_app statement has the relation \"\(AssetLinksFile.handleAllURLs)\", so no app may open this site's links")
        }
        return report
    }

    /// Whether `name` is a valid Android package name.
    public static func isPackageName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, SplitURL.isLetter(first) else { return false }
            return part.utf8.allSatisfy { SplitURL.isLetter($0) || SplitURL.isDigit($0) || $0 == UInt8(ascii: "_") }
        }
    }

    /// A sentence saying what is wrong with a fingerprint, or nil when it is 32 upper-case hex bytes joined by colons.
    public static func fingerprintProblem(_ fingerprint: String?) -> String? {
        guard let fingerprint else { return "a fingerprint must be a string such as \"AB:CD:...\"" }
        let parts = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
        let wellFormed = parts.count == 32 && parts.allSatisfy { part in
            part.utf8.count == 2 && part.utf8.allSatisfy { SplitURL.isDigit($0) || ($0 >= 0x41 && $0 <= 0x46) }
        }
        if wellFormed { return nil }
        return "\"\(fingerprint)\" is not a SHA-256 fingerprint as Android expects: 32 bytes in upper-case hex joined by colons, e.g. \"14:6D:E9:...\" (95 characters)"
    }
}
