import ArgumentParser

/// `handover link`: make, inspect and check links.
struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Make, inspect and check ULC, x-callback-url and out-of-band links."
    )
}
