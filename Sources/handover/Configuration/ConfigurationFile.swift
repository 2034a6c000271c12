import ArgumentParser
import Configuration
import Foundation
import HandoverServer
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
#endif

/// `handover serve --config FILE`: a YAML file of settings, one set of keys with the environment
/// and the flags, read with apple/swift-configuration. A setting's key is its environment
/// variable without `HANDOVER_`, in lower case with dashes (``ConfigurationSetting``):
///
/// ```yaml
/// public-url: https://handover.example.com
/// overdue-after: 13h
/// mdm: jamf
/// ```
///
/// The order is flags, then the environment, then the file, then the defaults: the file fills
/// in what the environment does not set (``merged(over:)``), and `serve` applies its flags on
/// top, as it always has. Every value is checked as the environment variable's is, and a
/// mistake of a value from the file names the file, its line and its key (``problem(for:environment:)``).
/// A key the file should not have is refused with its line and the nearest known key.
struct ConfigurationFile {
    /// The file's path, as given.
    var path: String
    /// Its settings: environment variable → value (as text), in the file's order.
    var values: [(variable: String, value: String, line: Int)]

    /// A mistake in the file, with its line and key where it has them: `handover.yaml:3: port:
    /// 'abc' is not a port number. Accepted: 0 to 65535.` One from the environment has no path
    /// and names its variable (`HANDOVER_PORT: …`).
    struct Problem: Error, CustomStringConvertible {
        var path: String?
        var line: Int?
        var text: String
        var description: String { (path.map { $0 + (line.map { ":\($0)" } ?? "") + ": " } ?? "") + text }
    }

    /// Every mistake found in one reading, in the file's order (those of the environment last).
    struct Problems: Error, CustomStringConvertible {
        var path: String
        var problems: [Problem]
        var description: String {
            let count = problems.count == 1 ? "1 mistake" : "\(problems.count) mistakes"
            return "\(path) has \(count):\n" + problems.map(\.description).joined(separator: "\n")
        }
    }

    /// The largest file read: 1 MB.
    static let maximumSize = 1 << 20

    /// Reads `path` and refuses it with every mistake of its lines (``Problems``) when it has any;
    /// see ``scan(_:)``.
    static func read(_ path: String) throws -> ConfigurationFile {
        let (file, problems) = try scan(path)
        guard problems.isEmpty else { throw Problems(path: path, problems: problems) }
        return file
    }

    /// Reads `path`: its size and mode first (``contents(of:)``), then its keys line by line; a
    /// file that holds a secret must be readable by its owner only (``checkPermissions(_:of:keys:)``);
    /// each line's value is read with swift-configuration's YAML snapshot. A mistake of a line
    /// (an unknown key, an indented line, a list) is returned with the others, and the other
    /// lines are still read; one of the whole file (unreadable, too large) is thrown.
    static func scan(_ path: String) throws -> (file: ConfigurationFile, problems: [Problem]) {
        let (data, mode) = try Self.contents(of: path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(path: path, line: nil, text: "is not a UTF-8 text file of at most 1 MB")
        }
        let (lines, lineProblems) = Self.keys(in: text, path: path)
        var problems = lineProblems
        let known = Dictionary(uniqueKeysWithValues: ConfigurationSetting.all.map { ($0.key, $0) })
        try Self.checkPermissions(mode, of: path, keys: lines.compactMap { known[$0.key] })
        var values: [(String, String, Int)] = []
        for (key, line, content) in lines {
            guard let setting = known[key] else {
                let nearest = CommandSuggestion.nearest(to: key, among: ConfigurationSetting.all.map(\.key))
                let written = content.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces)
                problems.append(Problem(path: path, line: line, text: "'\(written)' is not a setting" + (nearest.map { "; did you mean '\($0)'?" } ?? "")
                    + " `handover config example` lists them all"))
                continue
            }
            guard let value = Self.value(of: content, path: path) else {
                problems.append(Problem(path: path, line: line, text: "\(key): needs a single value (text, a number or true/false), not a list or a mapping"))
                continue
            }
            values.append((setting.variable, value, line))
        }
        return (ConfigurationFile(path: path, values: values), problems.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
    }

    /// The value of one `key: value` line, as YAML reads it (quotes, escapes, a trailing
    /// comment); nil when it is not a single value.
    static func value(of line: String, path: String) -> String? {
        guard let snapshot = try? YAMLSnapshot(data: Data(line.utf8).bytes, providerName: path, parsingOptions: .default),
              let colon = line.firstIndex(of: ":"),
              let result = try? snapshot.value(forKey: AbsoluteConfigKey([String(line[..<colon]).trimmingCharacters(in: .whitespaces)]), type: .string),
              case .string(let value)? = result.value?.content else { return nil }
        return value
    }

    /// The file's bytes and its permission bits. Its size is read first (`fstat` on the file this
    /// opens, so it is the file read), and at most ``maximumSize`` and one byte are ever read:
    /// a 1.5 GB file used to be read whole before its size was checked. What is not a regular file
    /// (a pipe, a device) is refused; it is opened without waiting for a writer.
    static func contents(of path: String) throws -> (data: Data, mode: mode_t) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Problem(path: path, line: nil, text: "cannot be read (does it exist, and may this user read it?)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else {
            throw Problem(path: path, line: nil, text: "is not a regular file; a configuration file is a UTF-8 text file of at most 1 MB")
        }
        let tooLarge = { (size: String) in Problem(path: path, line: nil, text: "has \(size) bytes; a configuration file is at most 1 MB (\(maximumSize) bytes)") }
        guard Int(status.st_size) <= maximumSize else { throw tooLarge(String(status.st_size)) }
        var data = Data(count: maximumSize + 1)
        var count = 0
        while count < data.count {
            let got = data.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { systemRead(descriptor, $0 + count, buffer.count - count) } ?? 0
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Problem(path: path, line: nil, text: "cannot be read (\(String(cString: strerror(errno))))") }
            if got == 0 { break }
            count += got
        }
        // It grew after its size was read.
        guard count <= maximumSize else { throw tooLarge("more than \(maximumSize)") }
        return (data.prefix(count), status.st_mode)
    }

    /// A file that holds a secret (a setting marked secret: the OIDC client secret, the encryption
    /// key, the Shared Signals push authorization, the SMTP password, …) must be readable by its
    /// owner only, as ssh requires of a private key: a group or others that may read it are refused,
    /// naming the file, its mode and the command that fixes it. A file without a secret may be
    /// readable by anyone.
    static func checkPermissions(_ mode: mode_t, of path: String, keys: [ConfigurationSetting]) throws {
        let secrets = keys.filter(\.isSecret).map(\.key)
        let readers = [(mode_t(S_IRGRP), "its group"), (mode_t(S_IROTH), "everyone on this machine")].filter { mode & $0.0 != 0 }.map(\.1)
        guard !secrets.isEmpty, !readers.isEmpty else { return }
        let octal = "0" + String(mode & 0o777, radix: 8)
        throw Problem(path: path, line: nil, text: "holds secrets (\(secrets.joined(separator: ", "))) and may be read by \(readers.joined(separator: " and ")) "
                      + "(mode \(octal)); run `chmod 600 \(path)` so that only its owner (the user that runs handover) may read it")
    }

    /// The file's top-level keys, their lines and the lines' text, and the mistakes of the other
    /// lines. Settings are flat `key: value` lines; comments (`#`) and blank lines pass; an
    /// indented line, a list, a second document or a key set twice is a mistake.
    static func keys(in text: String, path: String) -> (keys: [(key: String, line: Int, content: String)], problems: [Problem]) {
        var keys: [(String, Int, String)] = []
        var problems: [Problem] = []
        var seen: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = content.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || (line == 1 && trimmed == "---") { continue }
            guard content.first.map({ $0 != " " && $0 != "\t" }) == true, let colon = content.firstIndex(of: ":") else {
                problems.append(Problem(path: path, line: line, text: "settings are one per line, 'key: value', from the first column (no nesting, lists or indentation)"))
                continue
            }
            let key = String(content[..<colon]).trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                problems.append(Problem(path: path, line: line, text: "'\(key.prefix(60))' is not a key: lower-case letters, digits and dashes, such as public-url"))
                continue
            }
            let normalized = key.lowercased().replacingOccurrences(of: "_", with: "-")
            if let first = seen[normalized] {
                problems.append(Problem(path: path, line: line, text: "'\(key)' is set twice (first on line \(first))"))
                continue
            }
            seen[normalized] = line
            keys.append((normalized, line, String(content)))
        }
        return (keys, problems)
    }

    /// The environment the server reads: `environment`, with the file's settings where the
    /// environment has none.
    func merged(over environment: [String: String]) -> [String: String] {
        var merged = environment
        for (variable, value, _) in values where (environment[variable] ?? "").isEmpty {
            merged[variable] = value
        }
        return merged
    }

    /// `error` as the file's mistake when the file gave the value it is about (`handover.yaml:3:
    /// port: 'abc' is not a port number. …`), or when the setting is missing from both the file
    /// and the environment (`handover.yaml: mdm-action: is missing …`); as it is, naming the
    /// environment variable, when the environment gave the value.
    func problem(for error: ConfigurationError, environment: [String: String]) -> Problem {
        // A site's lending period is named `HANDOVER_LENDING_PERIODS (ICU)`.
        let variable = String(error.setting.prefix { $0 != " " })
        let detail = error.setting.dropFirst(variable.count)
        let text = "\(error.problem). Accepted: \(error.accepted)."
        guard let setting = ConfigurationSetting.named(variable), (environment[variable] ?? "").isEmpty else {
            return Problem(path: nil, line: nil, text: error.description)
        }
        let line = values.first { $0.variable == variable }?.line
        return Problem(path: path, line: line, text: "\(setting.key)\(detail): \(Self.namingKeys(text))")
    }

    /// `text` with each setting's variable written as the file's key: "needed with HANDOVER_MDM=jamf"
    /// becomes "needed with mdm=jamf".
    static func namingKeys(_ text: String) -> String {
        guard text.contains("HANDOVER_") else { return text }
        var text = text
        // The longest first: HANDOVER_MDM_ACTION before HANDOVER_MDM.
        for setting in ConfigurationSetting.all.sorted(by: { $0.variable.count > $1.variable.count }) {
            text = text.replacingOccurrences(of: setting.variable, with: setting.key)
        }
        return text
    }

    /// The effective settings from the file and the environment, one per line, where each came
    /// from, secrets hidden.
    func effective(over environment: [String: String]) -> [String] {
        let merged = merged(over: environment)
        let fromFile = Dictionary(values.map { ($0.variable, $0.line) }, uniquingKeysWith: { first, _ in first })
        return ConfigurationSetting.all.compactMap { setting in
            guard let value = merged[setting.variable], !value.isEmpty else { return nil }
            let source = (environment[setting.variable] ?? "").isEmpty ? "file, line \(fromFile[setting.variable] ?? 0)" : "environment, \(setting.variable)"
            // A URL's password is a secret wherever it is written (a badge lookup's, an MDM's).
            let shown = setting.isSecret ? "<hidden, \(value.count) characters>" : ConfigurationError.redactingPasswords(value)
            return "\(setting.key): \(shown)    # \(source)"
        }
    }
}
