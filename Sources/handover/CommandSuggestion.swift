import ArgumentParser

/// A mistyped subcommand or option, found before ArgumentParser answers with a bare "unexpected
/// argument": `handover serv` suggests `serve`, `handover serve --prot 9000` suggests `--port`.
struct CommandSuggestion {
    /// The command the mistake was made in, and its path from the root (`handover link`).
    var command: ParsableCommand.Type
    var path: [String]
    /// What was typed, and what was probably meant (nil when nothing is close).
    var typed: String
    var meant: String?
    /// `subcommand` or `option`.
    var kind: String

    /// The subcommand the arguments name, walking down from `root`, and its path.
    static func command(for arguments: [String], root: ParsableCommand.Type) -> (ParsableCommand.Type, [String], next: String?) {
        var current = root
        var path = [root.configuration.commandName ?? "handover"]
        for argument in arguments {
            guard !argument.hasPrefix("-") else { break }
            let children = current.configuration.subcommands
            guard !children.isEmpty else { break }
            guard let child = children.first(where: { name(of: $0) == argument || $0.configuration.aliases.contains(argument) }) else {
                return (current, path, argument)
            }
            current = child
            path.append(name(of: child))
        }
        return (current, path, nil)
    }

    /// A mistyped subcommand: an argument where the command expects one of its subcommands (and
    /// has no default one to take it as an argument).
    init?(subcommandIn arguments: [String], root: ParsableCommand.Type) {
        let (command, path, next) = Self.command(for: arguments, root: root)
        guard let next, command.configuration.defaultSubcommand == nil else { return nil }
        let names = command.configuration.subcommands.map(Self.name(of:))
        self.init(command: command, path: path, typed: next, meant: Self.nearest(to: next, among: names), kind: "subcommand")
    }

    /// A mistyped option: ArgumentParser refused `--name` as unknown; the command's own options
    /// (from its help) are searched for the nearest.
    init?(optionIn arguments: [String], error: any Error, root: ParsableCommand.Type) {
        let message = root.message(for: error)
        guard let start = message.range(of: "Unknown option '")?.upperBound, let end = message[start...].firstIndex(of: "'") else { return nil }
        let typed = String(message[start..<end])
        let (command, path, _) = Self.command(for: arguments, root: root)
        let help = root.helpMessage(for: command, columns: 200)
        let options = Set(help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") })
            .map(String.init).filter { $0.hasPrefix("--") && $0.count > 2 })
        self.init(command: command, path: path, typed: typed, meant: Self.nearest(to: typed, among: Array(options).sorted()), kind: "option")
    }

    init(command: ParsableCommand.Type, path: [String], typed: String, meant: String?, kind: String) {
        self.command = command
        self.path = path
        self.typed = typed
        self.meant = meant
        self.kind = kind
    }

    /// The message, ArgumentParser's way: the error, the suggestion, the command's usage.
    func message(root: ParsableCommand.Type) -> String {
        let what = kind == "subcommand" ? "'\(typed)' is not a subcommand of '\(path.joined(separator: " "))'" : "Unknown option '\(typed)'"
        let usage = root.usageString(for: command).trimmingCharacters(in: .whitespacesAndNewlines)
        return "Error: \(what)." + (meant.map { " Did you mean '\($0)'?" } ?? "") + "\n"
            + (usage.hasPrefix("Usage:") ? usage : "Usage: \(usage)") + "\n"
            + "  See '\(path.joined(separator: " ")) --help' for more information.\n"
    }

    static func name(of command: ParsableCommand.Type) -> String {
        command.configuration.commandName ?? String(describing: command).lowercased()
    }

    /// The candidate closest to `typed` by edit distance, when it is close enough to be a slip
    /// (at most a third of its length, and 3), or one that `typed` begins.
    static func nearest(to typed: String, among candidates: [String]) -> String? {
        if let prefixed = candidates.first(where: { $0.hasPrefix(typed) && typed.count >= 3 }) { return prefixed }
        let scored = candidates.map { ($0, distance(typed, $0)) }.sorted { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        guard let best = scored.first, best.1 <= min(3, max(1, typed.count / 3)) else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}
