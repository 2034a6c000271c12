import ArgumentParser
import Foundation
import UniversalLinks

/// `handover aasa diff OLD NEW --domain D [--app APPID]... [--urls FILE]`
struct AASADiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List the URLs whose decision changes between two association files, and the rule on each side.",
        discussion: """
            Every URL is decided with both files, for every app either file names (or the apps \
            given with --app), and each URL whose outcome or deciding rule differs is printed. \
            Without --urls, probe URLs are built from both files' patterns: each path with its \
            wildcards filled in (and each * left empty), each query pattern, each query item \
            left out in turn, each fragment. Exits 1 when a decision changes, 0 when none does \
            (as diff(1) does).

            Example:
              handover aasa diff ./aasa-old.json ./aasa-new.json --domain example.com
            where the new file adds {"/":"/buy/old/*","exclude":true} before {"/":"/buy/*"}, prints
              ABCDE12345.com.example.app  https://example.com/buy/old/x1  match by \
            details[0].components[1] {"/":"/buy/*"}  →  exclude by details[0].components[1] \
            {"/":"/buy/old/*","exclude":true}
              …
              2 of 5 decisions changed (5 URLs × 1 apps)
            """
    )

    @Argument(help: "The association file as it is: a path, or its https:// URL.")
    var old: String

    @Argument(help: "The association file as it will be: a path, or its https:// URL.")
    var new: String

    @Option(help: "The domain the files are served from, e.g. example.com.")
    var domain: String

    @Option(name: .customLong("app"), help: "Compare only this app ID (repeatable); every app either file names when left out.")
    var apps: [String] = []

    @Option(help: "A file of URLs to decide, one per line (blank lines and lines starting with # are skipped), instead of the probes.")
    var urls: String?

    func run() async throws {
        let before = try await Self.load(old), after = try await Self.load(new)
        let list: [String]
        if let urls {
            guard let text = FileManager.default.contents(atPath: urls).map({ String(decoding: $0, as: UTF8.self) }) else {
                throw ValidationError("cannot read the URL list \(urls); give a file with one absolute URL per line")
            }
            list = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            if let bad = list.first(where: { !AssociationMatcher.canDecide($0) }) {
                throw ValidationError("\(urls): '\(bad)' is not an absolute URL; write it as https://\(domain)/path")
            }
        } else {
            list = AssociationProbes.urls(for: [before, after], domain: domain)
        }
        let appIDs = apps.isEmpty ? AssociationDiff.appIDs([before, after]) : apps
        let changes = AssociationDiff.changes(from: before, to: after, domain: domain, urls: list, apps: appIDs)
        for change in changes { print(change) }
        print("\(changes.count) of \(list.count * appIDs.count) decisions changed (\(list.count) URLs × \(appIDs.count) apps)")
        if !changes.isEmpty { throw ExitCode(1) }
    }

    /// A file from a path or an https URL, parsed; an error names which side and why.
    static func load(_ source: String) async throws -> AssociationFile {
        let bytes: [UInt8]
        if source.lowercased().hasPrefix("https://") {
            let response = try await AssociationFetcher.fetch(source)
            guard response.statusCode == 200 else {
                throw ValidationError("\(source) answered HTTP \(response.statusCode), not 200 with the file")
            }
            bytes = response.body
        } else {
            bytes = try readAssociationFile(source)
        }
        do {
            return try AssociationFileParser.parse(bytes)
        } catch {
            // The parser throws only AssociationFileError (typed throws).
            throw ValidationError("\(source): \(error)")
        }
    }
}
