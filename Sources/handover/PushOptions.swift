import ArgumentParser
import Foundation
import HandoverConfiguration
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

    @Option(name: .customLong("apns-base-url"),
            help: ArgumentHelp("With --developer-mode: push to this APNs-protocol server instead of Apple's, such as the one `swift run apns-loopback` starts. Env: HANDOVER_APNS_BASE_URL.",
                               valueName: "url"))
    var baseURLText: String?

    @Option(name: .customLong("apns-ca-file"),
            help: ArgumentHelp("With --developer-mode: trust this PEM certificate for --apns-base-url (apns-loopback's is self-signed). Env: HANDOVER_APNS_CA_FILE.",
                               valueName: "file"))
    var caFile: String?

    @Option(name: .customLong("oob-link-scheme"),
            help: ArgumentHelp("The phone app's custom scheme, for x-callback-link operations. Env: HANDOVER_OOB_LINK_SCHEME. Default: handover", valueName: "scheme"))
    var linkScheme: String?

    /// Applies the flags (or their environment variables) to `configuration`.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if let scheme = linkScheme ?? environment["HANDOVER_OOB_LINK_SCHEME"], !scheme.isEmpty {
            let valid = scheme.first!.isLetter && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            guard valid, !["http", "https"].contains(scheme.lowercased()) else {
                throw ValidationError("--oob-link-scheme: '\(scheme)' is not a custom scheme. Accepted: a letter, then letters, digits, + - . (not http or https).")
            }
            configuration.outOfBandLinkScheme = scheme.lowercased()
        }
        let file = privateKeyFile ?? environment["HANDOVER_APNS_PRIVATE_KEY_FILE"]
        let keyID = keyID ?? environment["HANDOVER_APNS_KEY_ID"]
        let teamID = teamID ?? environment["HANDOVER_APNS_TEAM_ID"]
        let topic = topic ?? environment["HANDOVER_APNS_TOPIC"]
        let given = [file, keyID, teamID, topic].compactMap { $0?.isEmpty == false ? $0 : nil }
        guard !given.isEmpty else { return }
        guard let file, let keyID, let teamID, let topic, given.count == 4 else {
            throw ValidationError("APNs needs all four of --apns-private-key-file, --apns-key-id, --apns-team-id and --apns-topic (or their HANDOVER_APNS_* variables).")
        }
        let pem: String
        do { pem = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ValidationError("--apns-private-key-file: \(file) cannot be read (\(error.localizedDescription)).")
        }
        let environmentName = (apnsEnvironment ?? environment["HANDOVER_APNS_ENVIRONMENT"].flatMap { $0.isEmpty ? nil : $0 } ?? "production").lowercased()
        var baseURL: URL
        switch environmentName {
        case "production": baseURL = URL(string: "https://api.push.apple.com")!
        case "development", "sandbox": baseURL = URL(string: "https://api.sandbox.push.apple.com")!
        default: throw ValidationError("--apns-environment: '\(environmentName)' is not an environment. Accepted: production, development.")
        }
        var trusted: String?
        if let text = nonEmpty(baseURLText ?? environment["HANDOVER_APNS_BASE_URL"]) {
            guard configuration.developerMode else {
                throw ValidationError("--apns-base-url: only with --developer-mode; production pushes go to Apple.")
            }
            guard let url = URL(string: text), url.scheme?.lowercased() == "https", url.host != nil else {
                throw ValidationError("--apns-base-url: '\(text)' is not an https origin. Accepted: https://host:port, such as apns-loopback prints.")
            }
            baseURL = url
        }
        if let file = nonEmpty(caFile ?? environment["HANDOVER_APNS_CA_FILE"]) {
            guard configuration.developerMode else {
                throw ValidationError("--apns-ca-file: only with --developer-mode; Apple's certificate is trusted by the system.")
            }
            do { trusted = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw ValidationError("--apns-ca-file: \(file) cannot be read (\(error.localizedDescription)). Accepted: a PEM certificate file.")
            }
        }
        configuration.push = PushConfiguration(privateKeyPEM: pem, keyID: keyID, teamID: teamID, topic: topic, baseURL: baseURL,
                                               trustedCertificatesPEM: trusted)
    }

    private func nonEmpty(_ text: String?) -> String? {
        text.flatMap { $0.isEmpty ? nil : $0 }
    }
}
