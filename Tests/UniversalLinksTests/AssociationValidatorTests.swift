import Testing
@testable import UniversalLinks

@Suite(.timeLimit(.minutes(5))) struct AssociationValidatorTests {
    func report(_ text: String) -> ValidationReport {
        AssociationValidator.validate(Array(text.utf8))
    }

    func locations(_ report: ValidationReport, _ severity: ValidationIssue.Severity) -> [String] {
        report.issues.filter { $0.severity == severity }.map(\.location)
    }

    @Test func validFileHasNoFindings() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/buy/*"}]}]}}"#)
        #expect(r.issues.isEmpty)
    }

    @Test func aPatternWhoseSlashesIOSRewritesGetsAdvice() {
        let r = report(#"{"applinks": {"apps": [], "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "//buy/"}, {"/": "/help/*"}]}, {"appID": "ABCDE12345.com.example.app", "paths": ["NOT /old/"]}]}}"#)
        #expect(locations(r, .advice) == [#"$.applinks.details[0].components[0]["/"]"#, "$.applinks.details[1].paths[0]"])
        #expect(r.issues.first { $0.severity == .advice }?.message.contains(#"as "/buy""#) == true)
        #expect(!r.hasErrors)
    }

    @Test func invalidJSONIsAnErrorWithLineAndColumn() {
        let r = report("{\n\"applinks\": }")
        #expect(r.hasErrors)
        #expect(r.errors.first?.message.contains("line 2") == true)
    }

    @Test func fileOver128KBIsAnError() {
        let padding = String(repeating: " ", count: 128 * 1024)
        let r = report(#"{"applinks": {"details": []}}"# + padding)
        #expect(r.errors.contains { $0.message.contains("131072") })
    }

    @Test(arguments: ["ABCDE1234.com.x", "abcde12345.com.x", "ABCDE12345", "ABCDE12345.", "ABCDE12345.com..x", "ABCDE12345.com/x"])
    func badAppIDIsAnError(appID: String) {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["\#(appID)"], "components": []}]}}"#)
        #expect(locations(r, .error) == ["$.applinks.details[0].appIDs[0]"])
    }

    @Test func legacyAppsThatIsNotEmptyIsAnError() {
        let r = report(#"{"applinks": {"apps": ["x"], "details": []}}"#)
        #expect(locations(r, .error) == ["$.applinks.apps"])
    }

    @Test func mixedFormatsInOneEntryIsAWarning() {
        let r = report(#"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.a.b", "components": [], "paths": ["/x"]}]}}"#)
        #expect(r.warnings.contains { $0.location == "$.applinks.details[0]" && $0.message.contains("mixes formats") })
    }

    @Test func legacyPathsWithoutAppsIsAWarning() {
        let r = report(#"{"applinks": {"details": [{"appID": "ABCDE12345.a.b", "paths": ["/x"]}]}}"#)
        #expect(r.warnings.contains { $0.location == "$.applinks" && $0.message.contains("\"apps\": []") })
    }

    @Test func undefinedVariableIsAnError() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/$(food)/*"}]}]}}"#)
        #expect(r.errors.contains { $0.location == #"$.applinks.details[0].components[0]["/"]"# && $0.message.contains("$(food)") })
    }

    @Test func definedAndBuiltInVariablesAreAccepted() {
        let r = report(#"{"applinks": {"substitutionVariables": {"food": ["pizza"]}, "details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/$(food)/$(lang)/*"}]}]}}"#)
        #expect(!r.hasErrors)
    }

    @Test func componentAfterCatchAllIsUnreachable() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "*"}, {"/": "/buy/*", "exclude": true}]}]}}"#)
        #expect(r.warnings.contains { $0.location == "$.applinks.details[0].components[1]" && $0.message.contains("never reached") })
    }

    @Test func percentEscapeUnderPercentEncodedFalseIsReported() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/caf%C3%A9", "percentEncoded": false}]}]}}"#)
        #expect(r.warnings.contains { $0.message.contains("percentEncoded is false") })
    }

    @Test func rawSpaceUnderPercentEncodedTrueNeverMatches() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/a b"}]}]}}"#)
        #expect(r.warnings.contains { $0.message.contains("never matches") })
    }

    @Test func unknownKeysAreWarningsAtEveryLevel() {
        let r = report(#"{"extra": 1, "applinks": {"more": 1, "details": [{"appIDs": ["ABCDE12345.a.b"], "other": 1, "components": [{"/": "/x", "path": "/y"}]}]}}"#)
        #expect(locations(r, .warning) == [#"$["extra"]"#, #"$.applinks["more"]"#, #"$.applinks.details[0]["other"]"#, #"$.applinks.details[0].components[0]["path"]"#])
        #expect(!r.hasErrors)
    }

    @Test func nonBooleanOptionIsAnError() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/x", "caseSensitive": "no"}]}]}}"#)
        #expect(locations(r, .error) == ["$.applinks.details[0].components[0].caseSensitive"])
    }

    @Test func webcredentialsAppIDsAreChecked() {
        let r = report(#"{"webcredentials": {"apps": ["bad"]}}"#)
        #expect(locations(r, .error) == ["$.webcredentials.apps[0]"])
    }
}

@Suite(.timeLimit(.minutes(5))) struct HostingCheckTests {
    let body = Array(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/x"}]}]}}"#.utf8)

    @Test func httpsWith200AndJSONIsClean() {
        let response = FetchedResponse(url: "https://example.com/.well-known/apple-app-site-association", statusCode: 200, headers: [("Content-Type", "application/json")], body: body)
        #expect(HostingCheck.check(response).issues.isEmpty)
    }

    @Test func plainHTTPIsAnErrorWithoutTheFlag() {
        let response = FetchedResponse(url: "http://127.0.0.1:8080/.well-known/apple-app-site-association", statusCode: 200, headers: [("Content-Type", "application/json")], body: body)
        #expect(HostingCheck.check(response).hasErrors)
        let allowed = HostingCheck.check(response, allowInsecureHTTP: true)
        #expect(!allowed.hasErrors)
        #expect(allowed.warnings.count == 1)
    }

    @Test func redirectIsAnError() {
        let response = FetchedResponse(url: "https://example.com/.well-known/apple-app-site-association", statusCode: 301, headers: [("Location", "https://www.example.com/")])
        #expect(HostingCheck.check(response).errors.first?.message.contains("does not follow redirects") == true)
    }

    @Test func statusOtherThan200IsAnError() {
        let response = FetchedResponse(url: "https://example.com/.well-known/apple-app-site-association", statusCode: 404)
        #expect(HostingCheck.check(response).hasErrors)
    }

    @Test func otherContentTypeIsOnlyAdvice() {
        let response = FetchedResponse(url: "https://example.com/.well-known/apple-app-site-association", statusCode: 200, headers: [("content-type", "text/plain")], body: body)
        let report = HostingCheck.check(response)
        #expect(!report.hasErrors)
        #expect(report.issues.map(\.severity) == [.advice])
    }
}

@Suite(.timeLimit(.minutes(5))) struct GeneratorAndAssetLinksTests {
    let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    @Test func generatedFileValidatesAndDecidesAsRegistered() throws {
        let json = try AssociationGenerator.appleFile(for: [AppRegistration(appIDs: [testAppID], paths: ["/ulc/*"], excludedPaths: ["/ulc/web/*"])])
        #expect(AssociationValidator.validate(json: json).issues.isEmpty)
        let matcher = AssociationMatcher(file: try AssociationFileParser.parse(json: json), domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/ulc/cb/1").outcome == .match)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/ulc/web/1").outcome == .exclude)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/other").outcome == .noMatch)
    }

    @Test func generatedFileWithLegacyPathsHasAppsAndAgrees() throws {
        let json = try AssociationGenerator.appleFile(for: [AppRegistration(appIDs: [testAppID], paths: ["/ulc/*"], excludedPaths: ["/ulc/web/*"])], includeLegacyPaths: true)
        #expect(json["applinks"]?["apps"] == .array([]))
        #expect(AssociationValidator.validate(json: json).issues.isEmpty)
        let legacyOnly = try AssociationFileParser.parse(text: #"{"applinks": {"apps": [], "details": [\#(json["applinks"]?["details"]?.arrayValue?.last?.compactText ?? "")]}}"#)
        let matcher = AssociationMatcher(file: legacyOnly, domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/ulc/web/1").outcome == .exclude)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/ulc/1").outcome == .match)
    }

    @Test func generatorRefusesABadAppID() {
        #expect(throws: GeneratedFileError.self) {
            try AssociationGenerator.appleFile(for: [AppRegistration(appIDs: ["nope"], paths: ["/x"])])
        }
    }

    @Test func generatedAssetLinksValidate() throws {
        let json = try AssociationGenerator.assetLinks(for: [AssetLinksStatement(packageName: "com.example.app", fingerprints: [fingerprint])])
        #expect(json.compactText.contains("delegate_permission/common.handle_all_urls"))
        #expect(AssetLinksValidator.validate(json: json).issues.isEmpty)
    }

    @Test func lowerCaseFingerprintIsAnError() {
        #expect(AssetLinksValidator.fingerprintProblem(fingerprint.lowercased()) != nil)
        #expect(AssetLinksValidator.fingerprintProblem(fingerprint) == nil)
        #expect(AssetLinksValidator.fingerprintProblem(fingerprint.replacingOccurrences(of: ":", with: "")) != nil)
    }

    @Test func assetLinksWithoutHandleAllURLsIsAnError() {
        let r = AssetLinksValidator.validate(Array(#"[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\#(fingerprint)"]}}]"#.utf8))
        #expect(r.errors.map(\.location) == ["$"])
    }

    @Test func badPackageNameIsAnError() {
        #expect(!AssetLinksValidator.isPackageName("app"))
        #expect(!AssetLinksValidator.isPackageName("com.1example"))
        #expect(AssetLinksValidator.isPackageName("com.example.my_app"))
    }
}

/// The validator's findings added for issue 19: the oldest details layout and silent mistakes.
extension AssociationValidatorTests {
    @Test func detailsKeyedByAppIDIsADeprecationWarningNotAnError() {
        let r = report(AssociationFactsTests.dictionaryLayout)
        #expect(!r.hasErrors, "\(r.issues)")
        #expect(r.warnings.contains { $0.location == "$.applinks.details" && $0.message.contains("deprecated") })
    }

    @Test func detailsKeyedByAppIDStillHaveTheirEntriesChecked() {
        let r = report(#"{"applinks": {"apps": [], "details": {"ABCDE12345.com.x": {"paths": [5]}, "bad": {"paths": ["/x"]}}}}"#)
        #expect(locations(r, .error).contains(#"$.applinks.details["ABCDE12345.com.x"].paths[0]"#), "\(r.issues)")
        #expect(locations(r, .error).contains(#"$.applinks.details["bad"].appID"#), "\(r.issues)")
    }

    @Test func anEmptyDetailsArrayIsAWarning() {
        let r = report(#"{"applinks": {"details": []}}"#)
        #expect(r.warnings.contains { $0.location == "$.applinks.details" && $0.message.contains("empty") })
    }

    @Test func anUnterminatedSubstitutionIsAWarning() {
        let r = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(lang/*"}]}]}}"#)
        #expect(r.warnings.contains { $0.message.contains("no closing") }, "\(r.issues)")
        let closed = report(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(lang)/*"}]}]}}"#)
        #expect(!closed.warnings.contains { $0.message.contains("no closing") })
    }

    @Test func anEntryWithBothAppIDAndAppIDsIsAWarning() {
        let other = report(#"{"applinks": {"details": [{"appID": "ABCDE12345.com.a", "appIDs": ["ABCDE12345.com.b"], "components": [{"/": "/x"}]}]}}"#)
        #expect(other.warnings.contains { $0.location == "$.applinks.details[0]" && $0.message.contains("gets nothing") }, "\(other.issues)")
        let same = report(#"{"applinks": {"details": [{"appID": "ABCDE12345.com.a", "appIDs": ["ABCDE12345.com.a"], "components": [{"/": "/x"}]}]}}"#)
        #expect(same.warnings.contains { $0.message.contains("redundant") }, "\(same.issues)")
    }
}
