import ArgumentParser
import HandoverProtocol

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
              handover demo                   the whole system on a simulated phone, nothing to set up
              handover serve                  run the server (SQLite in ./.handover, no set-up)
              handover tester run --simulate conformant
                                              the ULC conformance tester, from the terminal
              handover link inspect URL       what kind of link is this, and would a receiver accept it?
              handover link make --help       build a ULC logout link
              handover aasa check URL|FILE    validate an apple-app-site-association file
              handover qr TEXT                a QR code in the terminal, or --png/--svg to a file
            """,
        version: HandoverVersion.current,
        subcommands: [ServeCommand.self, DemoCommand.self, TesterCommand.self, AdminCommand.self, LinkCommand.self,
                      AASACommand.self, SimulateCommand.self, BenchCommand.self, QRCommand.self]
    )
}
