import ArgumentParser
import Foundation
import UniversalLinks

/// `handover aasa`: check association files and decide URLs the way iOS does.
struct AASACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Check apple-app-site-association files and decide which URLs open which app.",
        discussion: """
            Every universal link, including each ULC and its callbacks, works only when the \
            domain's apple-app-site-association file claims it. These commands read that file \
            the way iOS does: percent encoding, query dictionaries, substitution variables and all.

            Examples:
              handover aasa check https://example.com/.well-known/apple-app-site-association
              handover aasa check ./apple-app-site-association --json
              handover aasa match ./aasa.json --domain example.com --app ABCDE12345.com.example.app https://example.com/buy/42
              handover aasa diff ./aasa-old.json ./aasa-new.json --domain example.com
              handover aasa decide < corpus.jsonl
            """,
        subcommands: [AASACheckCommand.self, AASAMatchCommand.self, AASADiffCommand.self, AASADecideCommand.self]
    )
}

/// Reads a local file, with an error that says which file and why.
func readAssociationFile(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read the file \(path); give a path to an apple-app-site-association file or an https:// URL")
    }
    return Array(data)
}

/// `handover aasa check FILE|URL`
struct AASACheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate an association file, local or hosted, and print what is wrong.",
        discussion: """
            Given a URL, the file is fetched once, without following redirects (iOS does not \
            follow them), and the hosting is judged too: https, status 200, size, content type.
            Exits 1 when there is at least one error; warnings and advice do not fail.

            Examples:
              handover aasa check https://example.com/.well-known/apple-app-site-association
              handover aasa check ./apple-app-site-association
              handover aasa check http://127.0.0.1:8080/.well-known/apple-app-site-association --insecure-http
              handover aasa check example.com --cdn

            With --cdn the argument is a domain: its file is fetched from the origin and from \
            Apple's CDN (https://app-site-association.cdn-apple.com/a/v1/DOMAIN), which is where \
            devices on iOS 14 and later get it, and the two are compared app by app. Exits 1 when \
            the origin's file has errors or the CDN's copy differs.
            """
    )

    @Argument(help: "A path to an apple-app-site-association file, its https:// URL, or with --cdn a domain.")
    var source: String

    @Flag(help: "Accept a plain http:// URL. Only for development on loopback; iOS never does this.")
    var insecureHTTP = false

    @Flag(help: "Print the report as JSON: {\"errors\":N,\"warnings\":N,\"issues\":[{\"severity\",\"location\",\"message\"}]}.")
    var json = false

    @Flag(help: "Give a domain (example.com): check its file, then compare it with the copy Apple's CDN serves to devices, app by app.")
    var cdn = false

    @Option(help: .hidden)
    var cdnBaseURL = AASACDNCheck.appleCDN

    func validate() throws {
        if cdn && json { throw ValidationError("--cdn prints text only; leave out --json") }
    }

    func run() async throws {
        if cdn {
            try await AASACDNCheck(domain: source, insecureHTTP: insecureHTTP, cdnBaseURL: cdnBaseURL).run()
            return
        }
        let report: ValidationReport
        let lower = source.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            if lower.hasPrefix("http://") && !insecureHTTP {
                throw ValidationError("\(source) is plain http; iOS only fetches https. For a loopback development server, add --insecure-http")
            }
            let response = try await AssociationFetcher.fetch(source)
            report = HostingCheck.check(response, allowInsecureHTTP: insecureHTTP)
        } else {
            report = AssociationValidator.validate(try readAssociationFile(source))
        }
        print(json ? Self.jsonText(report) : Self.text(report))
        if report.hasErrors { throw ExitCode(1) }
    }

    static func text(_ report: ValidationReport) -> String {
        if report.issues.isEmpty { return "ok: no problems found" }
        let lines = report.issues.map(\.description)
        return (lines + ["\(report.errors.count) error(s), \(report.warnings.count) warning(s)"]).joined(separator: "\n")
    }

    static func jsonText(_ report: ValidationReport) -> String {
        let issues = report.issues.map { issue in
            JSONValue.object([("severity", .string(issue.severity.rawValue)), ("location", .string(issue.location)), ("message", .string(issue.message))])
        }
        return JSONValue.object([
            ("errors", .number(String(report.errors.count))),
            ("warnings", .number(String(report.warnings.count))),
            ("issues", .array(issues)),
        ]).compactText
    }
}

/// `handover aasa match FILE --domain D --app APPID URL...`
struct AASAMatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Print, for each URL, whether it opens the app and which component decided.",
        discussion: """
            Each URL is decided as iOS would: the first component that matches decides, and \
            a URL on another host never matches.

            Example:
              handover aasa match ./aasa.json --domain example.com --app ABCDE12345.com.example.app \\
                https://example.com/buy/42 https://example.com/help
            prints
              https://example.com/buy/42  match by components[1] {"/":"/buy/*"}
              https://example.com/help  no match

            With --explain, each URL that nothing claims gets the closest rule and what refused it:
              handover aasa match ./aasa.json --domain example.com --app ABCDE12345.com.example.app \\
                --explain https://example.com/Buy/42
            prints
              https://example.com/Buy/42  no match: closest: $.applinks.details[0].components[1] \\
            {"/":"/buy/*"}; path refused it: the path /Buy/42 does not match "/buy/*"; it differs \\
            only in letter case: it would match with "caseSensitive": false
            """
    )

    @Argument(help: "A path to an apple-app-site-association file.")
    var file: String

    @Option(help: "The domain the file is served from, e.g. example.com.")
    var domain: String

    @Option(help: "The app ID: team ID, a dot, bundle ID (ABCDE12345.com.example.app).")
    var app: String

    @Argument(help: "One or more absolute URLs to decide.")
    var urls: [String]

    @Flag(help: "Say why: for a URL nothing claims, the rule that came closest and the part of it that refused (path, query item, fragment, case, percent-encoding, substitution variable); for an excluded URL, the exclude rule that took it.")
    var explain = false

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one URL to decide, e.g. https://\(domain)/buy/42") }
    }

    func run() async throws {
        let parsed: AssociationFile
        do {
            parsed = try AssociationFileParser.parse(try readAssociationFile(file))
        } catch let error as AssociationFileError {
            throw ValidationError("\(file): \(error)")
        }
        if explain {
            let explainer = AssociationExplainer(file: parsed, domain: domain)
            for url in urls { print("\(url)  \(explainer.explain(appID: app, url: url))") }
            return
        }
        let matcher = AssociationMatcher(file: parsed, domain: domain)
        let entries = parsed.appLinks?.details.filter { $0.appIDs.contains(app) }.count ?? 0
        for url in urls {
            guard AssociationMatcher.canDecide(url) else {
                print("\(url)  error: not an absolute URL; write it as https://\(domain)/path")
                continue
            }
            let decision = matcher.decide(appID: app, url: url)
            var line = "\(url)  \(decision)"
            if let rule = decision.rule, entries > 1 { line += " in details[\(rule.detailsIndex)]" }
            print(line)
        }
    }
}

/// `handover aasa decide`: the batch protocol for conformance corpora.
struct AASADecideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Decide a stream of cases, one JSON object per line (for conformance corpora).",
        discussion: """
            stdin: one JSON object per line,
              {"id":1,"aasa":{...},"domain":"example.com","appId":"ABCDE12345.com.example.app","url":"https://example.com/buy/1"}
            stdout: one line per input line, in order,
              {"id":1,"decision":"match"}        (or "exclude", "no_match")
              {"id":2,"error":"..."}             for a line that cannot be decided; the run goes on.
            Blank lines are skipped. The exit status is 0 unless stdin cannot be read.

            Example:
              handover aasa decide < corpus.jsonl > answers.jsonl
            """
    )

    func run() async throws {
        var cache: (text: String, domain: String, matcher: AssociationMatcher)?
        while let line = readLine(strippingNewline: true) {
            if line.allSatisfy(\.isWhitespace) { continue }
            print(Self.answer(line, cache: &cache))
        }
    }

    /// One answer line for one input line. Reuses the last compiled matcher when a corpus repeats the file.
    static func answer(_ line: String, cache: inout (text: String, domain: String, matcher: AssociationMatcher)?) -> String {
        func reply(_ id: JSONValue, _ key: String, _ value: String) -> String {
            JSONValue.object([("id", id), (key, .string(value))]).compactText
        }
        let request: JSONValue
        do {
            request = try JSONParser.parse(line)
        } catch {
            return reply(.null, "error", "the line is not JSON: \(error.reason) at column \(error.column)")
        }
        let id = request["id"] ?? .null
        guard case .object = request else { return reply(id, "error", "the line must be a JSON object with id, aasa, domain, appId and url") }
        guard let aasa = request["aasa"] else { return reply(id, "error", "\"aasa\" is missing; give the association file as a JSON object") }
        guard let domain = request["domain"]?.stringValue else { return reply(id, "error", "\"domain\" is missing or not a string; give a host such as \"example.com\"") }
        guard let appID = request["appId"]?.stringValue else { return reply(id, "error", "\"appId\" is missing or not a string; give TEAMID.bundle.id") }
        guard let url = request["url"]?.stringValue else { return reply(id, "error", "\"url\" is missing or not a string; give an absolute https URL") }
        guard AssociationMatcher.canDecide(url) else { return reply(id, "error", "\"url\" is not an absolute URL: \(url)") }
        let text = aasa.compactText
        let matcher: AssociationMatcher
        if let cache, cache.text == text, cache.domain == domain {
            matcher = cache.matcher
        } else {
            do {
                matcher = AssociationMatcher(file: try AssociationFileParser.parse(json: aasa), domain: domain)
            } catch {
                return reply(id, "error", "\"aasa\": \(error)")
            }
            cache = (text, domain, matcher)
        }
        return reply(id, "decision", matcher.decide(appID: appID, url: url).outcome.rawValue)
    }
}
