import APNsTestServer
import ArgumentParser
import Crypto
import Foundation
import HandoverServer

/// APNs and out-of-band flags of `handover serve`.
struct PushOptions: ParsableArguments {
    @Option(name: .customLong("apns-private-key-file"),
            help: ArgumentHelp("The APNs auth key (AuthKey_XXXXXXXXXX.p8) for out-of-band operations by push. Env: HANDOVER_APNS_PRIVATE_KEY_FILE.",
                               valueName: "file"))
    var privateKeyFile: String?

    @Option(name: .customLong("apns-key-id"), help: ArgumentHelp("That key's 10-character id. Env: HANDOVER_APNS_KEY_ID.", valueName: "id"))
    var keyID: String?

    @Option(name: .customLong("apns-team-id"), help: ArgumentHelp("The team that owns the key. Env: HANDOVER_APNS_TEAM_ID.", valueName: "id"))
    var teamID: String?

    @Option(name: .customLong("apns-topic"), help: ArgumentHelp("The phone app's bundle id (apns-topic). Env: HANDOVER_APNS_TOPIC.", valueName: "bundle-id"))
    var topic: String?

    @Option(name: .customLong("apns-environment"),
            help: ArgumentHelp("production or development (the sandbox, for development builds of the app). Env: HANDOVER_APNS_ENVIRONMENT. Default: production",
                               valueName: "name"))
    var apnsEnvironment: String?

    @Flag(name: .customLong("apns-loopback"),
          help: "With --developer-mode: push to an APNs-protocol server inside this process (HTTP/2 over TLS on loopback) instead of Apple, so `handover simulate oob --dispatcher push` can read the pushes at /dev/push-inbox/{token}.")
    var loopback = false

    @Option(name: .customLong("oob-link-scheme"),
            help: ArgumentHelp("The phone app's custom scheme, for x-callback-link operations. Env: HANDOVER_OOB_LINK_SCHEME. Default: handover", valueName: "scheme"))
    var linkScheme: String?

    /// Applies the flags (or their environment variables) to `configuration`; with --apns-loopback
    /// starts the loopback APNs server and returns it, to serve as the push inbox.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> LoopbackAPNs? {
        if let scheme = linkScheme ?? environment["HANDOVER_OOB_LINK_SCHEME"], !scheme.isEmpty {
            let valid = scheme.first!.isLetter && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            guard valid, !["http", "https"].contains(scheme.lowercased()) else {
                throw ValidationError("--oob-link-scheme: '\(scheme)' is not a custom scheme. Accepted: a letter, then letters, digits, + - . (not http or https).")
            }
            configuration.outOfBandLinkScheme = scheme.lowercased()
        }
        if loopback {
            guard configuration.developerMode else {
                throw ValidationError("--apns-loopback: only with --developer-mode; it replaces Apple's push service with one on this machine.")
            }
            let apns = try await LoopbackAPNs.start()
            configuration.push = apns.configuration
            return apns
        }
        let file = privateKeyFile ?? environment["HANDOVER_APNS_PRIVATE_KEY_FILE"]
        let keyID = keyID ?? environment["HANDOVER_APNS_KEY_ID"]
        let teamID = teamID ?? environment["HANDOVER_APNS_TEAM_ID"]
        let topic = topic ?? environment["HANDOVER_APNS_TOPIC"]
        let given = [file, keyID, teamID, topic].compactMap { $0?.isEmpty == false ? $0 : nil }
        guard !given.isEmpty else { return nil }
        guard let file, let keyID, let teamID, let topic, given.count == 4 else {
            throw ValidationError("APNs needs all four of --apns-private-key-file, --apns-key-id, --apns-team-id and --apns-topic (or their HANDOVER_APNS_* variables).")
        }
        let pem: String
        do { pem = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ValidationError("--apns-private-key-file: \(file) cannot be read (\(error.localizedDescription)).")
        }
        let environmentName = (apnsEnvironment ?? environment["HANDOVER_APNS_ENVIRONMENT"].flatMap { $0.isEmpty ? nil : $0 } ?? "production").lowercased()
        let baseURL: URL
        switch environmentName {
        case "production": baseURL = URL(string: "https://api.push.apple.com")!
        case "development", "sandbox": baseURL = URL(string: "https://api.sandbox.push.apple.com")!
        default: throw ValidationError("--apns-environment: '\(environmentName)' is not an environment. Accepted: production, development.")
        }
        configuration.push = PushConfiguration(privateKeyPEM: pem, keyID: keyID, teamID: teamID, topic: topic, baseURL: baseURL)
        return nil
    }
}

/// An APNs-protocol server on loopback, with a provider key made for it: developer mode's push.
final class LoopbackAPNs: PushInbox {
    let server: APNsTestServer
    let configuration: PushConfiguration

    private init(server: APNsTestServer, configuration: PushConfiguration) {
        self.server = server
        self.configuration = configuration
    }

    static func start() async throws -> LoopbackAPNs {
        let server = try await APNsTestServer.start()
        let key = P256.Signing.PrivateKey()
        server.registerKey(keyID: "LOOPBACK01", teamID: "LOOPBACK01", publicKey: key.publicKey)
        let pem = server.certificatePEM
        let configuration = PushConfiguration(privateKeyPEM: key.pemRepresentation, keyID: "LOOPBACK01", teamID: "LOOPBACK01",
                                              topic: "dev.handover.loopback", baseURL: server.baseURL, trustedCertificatesPEM: pem)
        return LoopbackAPNs(server: server, configuration: configuration)
    }

    func payloads(for deviceToken: String) -> [Data] {
        server.requests(for: deviceToken).map(\.payload)
    }

    func shutdown() async {
        try? await server.shutdown()
    }
}
