import ArgumentParser

/// The `handover` command: the root of every subcommand.
@main
struct Handover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handover",
        abstract: "Sign users in and out of iOS apps through links, on shared devices.",
        discussion: """
            Handover speaks Universal Link Callbacks (ULC), x-callback-url and out-of-band links, \
            and checks the association files that make universal links work.

            Start with:
              handover serve                  run the server (SQLite in ./.handover, no set-up)
              handover link inspect URL       what kind of link is this, and would a receiver accept it?
              handover link make --help       build a ULC logout link
              handover aasa check URL|FILE    validate an apple-app-site-association file
            """,
        subcommands: [ServeCommand.self, AdminCommand.self, LinkCommand.self, AASACommand.self, SimulateCommand.self, QRCommand.self]
    )
}
