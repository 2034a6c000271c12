import ArgumentParser
import DeviceSimulator
import Foundation
import HandoverClient
import OutOfBand

extension SimulateCommand {
    /// `handover simulate oob`: the phone's part of an out-of-band operation, against a running server.
    struct OutOfBandOperation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "oob",
            abstract: "Play the phone's part of an out-of-band operation against a running server, and print the final status.",
            discussion: """
                The simulated phone enrolls its keys for --user (a registration it approves, once per key), \
                has the server create the operation, receives it the way the dispatcher delivers it, \
                answers, and reads the final status:
                  link             opens the universal link from the server's answer
                  x-callback-link  opens the custom-scheme x-callback-url link
                  qr               downloads /api/v1/operations/{id}/qr.png and decodes it with zbarimg
                  push             registers a push token signed by its key, and reads the push the server
                                   sent from apns-loopback's inbox (--push-inbox, or HANDOVER_PUSH_INBOX)

                Decisions and the final status each should give:
                  approve       picks the number the web page shows  -> succeeded
                  deny          denies                               -> cancelled
                  wrong-number  picks another number (authentication) -> failed
                  late          answers after the expiry (2 s)        -> expired

                The command exits 0 when the final status is the expected one, and 1 otherwise.

                Examples:
                  eval "$(swift run apns-loopback)"     # a loopback APNs; sets HANDOVER_APNS_* and HANDOVER_PUSH_INBOX
                  handover serve --developer-mode
                  handover simulate oob --server http://127.0.0.1:8080 --admin-key KEY --dispatcher qr
                  handover simulate oob --server http://127.0.0.1:8080 --admin-key KEY --dispatcher push --decision wrong-number
                  handover simulate oob --server URL --admin-key KEY --dispatcher link --type transaction-confirmation --decision deny --json
                """
        )

        @Option(help: ArgumentHelp("The Handover server, such as http://127.0.0.1:8080.", valueName: "url"))
        var server: String

        @Option(name: .customLong("admin-key"), help: ArgumentHelp("An admin key (creates the operations, reads their status).", valueName: "key"))
        var adminKey: String

        @Option(help: ArgumentHelp("How the operation reaches the phone: \(OutOfBandScenario.Dispatcher.allCases.map(\.rawValue).joined(separator: ", ")).",
                                   valueName: "dispatcher"))
        var dispatcher: String

        @Option(help: ArgumentHelp("What the user does: \(OutOfBandScenario.Decision.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "decision"))
        var decision: String = "approve"

        @Option(help: ArgumentHelp("The operation: \(OperationType.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "type"))
        var type: String = "authentication"

        @Option(help: ArgumentHelp("The user the phone is enrolled for.", valueName: "name"))
        var user: String = "sim-user"

        @Option(name: .customLong("keys-file"),
                help: ArgumentHelp("Keep the phone's keys in this file (created when missing), so runs reuse one enrolled phone; fresh keys each run otherwise.",
                                   valueName: "file"))
        var keysFile: String?

        @Option(name: .customLong("push-inbox"),
                help: ArgumentHelp("For --dispatcher push: the inbox of the loopback APNs server, as apns-loopback prints it. Env: HANDOVER_PUSH_INBOX.",
                                   valueName: "url"))
        var pushInbox: String?

        @Flag(help: "Print the report as JSON.")
        var json = false

        func validate() throws {
            guard OutOfBandScenario.Dispatcher(rawValue: dispatcher) != nil else {
                throw ValidationError("--dispatcher: '\(dispatcher)' is not a dispatcher. Accepted: \(OutOfBandScenario.Dispatcher.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard let decision = OutOfBandScenario.Decision(rawValue: decision) else {
                throw ValidationError("--decision: '\(self.decision)' is not a decision. Accepted: \(OutOfBandScenario.Decision.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard let type = OperationType(rawValue: type) else {
                throw ValidationError("--type: '\(self.type)' is not an operation type. Accepted: \(OperationType.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if decision == .wrongNumber, type != .authentication {
                throw ValidationError("--decision wrong-number needs --type authentication: only sign-ins carry numbers.")
            }
            if type == .registration, dispatcher == "push" {
                throw ValidationError("--type registration cannot use --dispatcher push: a phone has no push token before it enrolls.")
            }
            guard URL(string: server)?.host != nil else {
                throw ValidationError("--server: '\(server)' is not a URL. Accepted: http(s)://host:port, such as http://127.0.0.1:8080.")
            }
        }

        func run() async throws {
            let keys: DeviceKeys
            if let keysFile {
                keys = try DeviceKeys.loadOrCreate(from: FileDeviceKeyStore(url: URL(fileURLWithPath: keysFile)))
            } else {
                keys = .generate()
            }
            let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data(("· " + line + "\n").utf8)) }
            var decoder: OutOfBandPhoneSimulation.QRDecoder?
            if let path = Zbarimg.path {
                decoder = { @Sendable png in try Zbarimg.decode(png, with: path) }
            }
            let simulation = OutOfBandPhoneSimulation(server: URL(string: server)!, adminKey: adminKey, keys: keys, qrDecoder: decoder,
                                                      progress: progress)
            let scenario = OutOfBandScenario(type: OperationType(rawValue: type)!, dispatcher: OutOfBandScenario.Dispatcher(rawValue: dispatcher)!,
                                             decision: OutOfBandScenario.Decision(rawValue: decision)!, user: user,
                                             pushInbox: (pushInbox ?? ProcessInfo.processInfo.environment["HANDOVER_PUSH_INBOX"]).flatMap(URL.init(string:)))
            let report: OutOfBandReport
            do {
                report = try await simulation.run(scenario)
            } catch let error as FleetServerError {
                throw ValidationError("The server refused a step: \(error)")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print("operation \(report.operation): \(report.type) by \(report.dispatcher), decision \(report.decision)")
                print("final status: \(report.finalStatus)\(report.failure.map { " (\($0))" } ?? "")")
            }
            guard report.isAsExpected else {
                FileHandle.standardError.write(Data("expected \(report.expectedStatus) for \(report.decision), got \(report.finalStatus)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
