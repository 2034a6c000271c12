import Foundation
import HandoverCore

extension ServerConfiguration {
    /// Reads the audit log's settings: `HANDOVER_AUDIT_CHECKPOINT_INTERVAL`, `HANDOVER_SIEM_SYSLOG`
    /// (and `HANDOVER_SIEM_SYSLOG_CA`), `HANDOVER_SIEM_SPLUNK_URL` with `HANDOVER_SIEM_SPLUNK_TOKEN`.
    package static func readAuditSettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let text = value("HANDOVER_AUDIT_CHECKPOINT_INTERVAL") {
            guard let seconds = Int(text), (1...60).contains(seconds) else {
                throw ConfigurationError(setting: "HANDOVER_AUDIT_CHECKPOINT_INTERVAL", problem: "'\(text)' is not a whole number of seconds from 1 to 60",
                                         accepted: "seconds between checkpoints while the log grows, such as 30 (the default)")
            }
            configuration.audit.checkpointInterval = TimeInterval(seconds)
        }
        if let list = value("HANDOVER_SIEM_SYSLOG") {
            let ca = value("HANDOVER_SIEM_SYSLOG_CA")
            if let ca, !FileManager.default.isReadableFile(atPath: ca) {
                throw ConfigurationError(setting: "HANDOVER_SIEM_SYSLOG_CA", problem: "cannot read \(ca)", accepted: "a PEM file of certificate authorities")
            }
            for entry in list.split(separator: ",") {
                let text = entry.trimmingCharacters(in: .whitespaces)
                guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port),
                      !text[..<colon].isEmpty else {
                    throw ConfigurationError(setting: "HANDOVER_SIEM_SYSLOG", problem: "'\(text)' is not host:port",
                                             accepted: "host:port of a syslog receiver over TLS (RFC 5425; 6514 is its port), several separated by commas")
                }
                configuration.audit.syslog.append(.init(host: String(text[..<colon]), port: port, trustedCertificates: ca))
            }
        }
        switch (value("HANDOVER_SIEM_SPLUNK_URL"), value("HANDOVER_SIEM_SPLUNK_TOKEN")) {
        case (nil, nil):
            break
        case (let url?, let token?):
            guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil else {
                throw ConfigurationError(setting: "HANDOVER_SIEM_SPLUNK_URL", problem: "'\(url)' is not an http(s) URL",
                                         accepted: "the HTTP Event Collector's base URL, such as https://splunk.example.org:8088")
            }
            configuration.audit.splunk = .init(url: parsed, token: token)
        case (nil, _):
            throw ConfigurationError(setting: "HANDOVER_SIEM_SPLUNK_URL", problem: "is missing while HANDOVER_SIEM_SPLUNK_TOKEN is set",
                                     accepted: "the HTTP Event Collector's base URL")
        case (_, nil):
            throw ConfigurationError(setting: "HANDOVER_SIEM_SPLUNK_TOKEN", problem: "is missing while HANDOVER_SIEM_SPLUNK_URL is set",
                                     accepted: "the HEC token Splunk gave the collector")
        }
    }
}
