import Foundation
import HandoverCore
import NIOSSL

/// Where and how the server sends mail (email-link sign-in).
///
/// Set with `HANDOVER_SMTP_HOST`, `HANDOVER_SMTP_PORT` (587), `HANDOVER_SMTP_USER`,
/// `HANDOVER_SMTP_PASSWORD`, `HANDOVER_SMTP_STARTTLS` (`required` by default, or `off` for a
/// relay on loopback), `HANDOVER_SMTP_FROM` and `HANDOVER_SMTP_CA_FILE` (a PEM of extra trusted
/// roots, for a relay with a private CA).
public struct SMTPConfiguration: Sendable {
    /// Whether the conversation is encrypted.
    public enum Security: String, Sendable {
        /// Upgrade with STARTTLS before sending anything else; fail if the server cannot.
        case startTLS = "required"
        /// Plain text: only for a relay on loopback or a trusted network.
        case none = "off"
    }

    /// The relay's host name or address.
    public var host: String
    /// The relay's port: 587, submission, by default.
    public var port: Int = 587
    /// The relay's user name, when it asks for one.
    public var username: String?
    /// The relay's password, with ``username``.
    public var password: String?
    /// STARTTLS required (the default), or plain text.
    public var security: Security = .startTLS
    /// The envelope and header sender, such as `Handover <no-reply@handover.example.com>`.
    public var from: String
    /// PEM certificates to trust besides the system's.
    public var trustedCertificatesPEMFile: String?
    /// The deadline of one whole conversation.
    public var timeout: Duration = .seconds(20)

    /// A relay at `host`, sending as `from`.
    public init(host: String, port: Int = 587, from: String, security: Security = .startTLS,
                username: String? = nil, password: String? = nil, trustedCertificatesPEMFile: String? = nil) {
        self.host = host
        self.port = port
        self.from = from
        self.security = security
        self.username = username
        self.password = password
        self.trustedCertificatesPEMFile = trustedCertificatesPEMFile
    }

    /// The bare address of ``from`` (inside `<…>` when a display name is given).
    package var fromAddress: String {
        if let open = from.lastIndex(of: "<"), let close = from.lastIndex(of: ">"), open < close {
            return String(from[from.index(after: open)..<close])
        }
        return from
    }

    /// Reads the `HANDOVER_SMTP_*` variables; `nil` when no host is set.
    package static func fromEnvironment(_ environment: [String: String]) throws -> SMTPConfiguration? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let host = value("HANDOVER_SMTP_HOST") else { return nil }
        guard let from = value("HANDOVER_SMTP_FROM") else {
            throw ConfigurationError(setting: "HANDOVER_SMTP_FROM", problem: "is missing (needed with HANDOVER_SMTP_HOST)",
                                     accepted: "a sender such as 'Handover <no-reply@handover.example.com>'")
        }
        var configuration = SMTPConfiguration(host: host, from: from)
        if let port = value("HANDOVER_SMTP_PORT") {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw ConfigurationError(setting: "HANDOVER_SMTP_PORT", problem: "'\(port)' is not a port", accepted: "1 to 65535 (587 by default)")
            }
            configuration.port = number
        }
        if let security = value("HANDOVER_SMTP_STARTTLS") {
            guard let parsed = Security(rawValue: security.lowercased()) else {
                throw ConfigurationError(setting: "HANDOVER_SMTP_STARTTLS", problem: "'\(security)' is not a mode", accepted: "required or off")
            }
            configuration.security = parsed
        }
        configuration.username = value("HANDOVER_SMTP_USER")
        configuration.password = value("HANDOVER_SMTP_PASSWORD")
        configuration.trustedCertificatesPEMFile = value("HANDOVER_SMTP_CA_FILE")
        return configuration
    }
}

extension SMTPConfiguration {
    /// Reads the extra trusted certificates now, so that a missing or unreadable
    /// `HANDOVER_SMTP_CA_FILE` stops the start instead of the first sign-in mail.
    package func checkTrustedCertificates() throws {
        guard let file = trustedCertificatesPEMFile else { return }
        do {
            guard try !NIOSSLCertificate.fromPEMFile(file).isEmpty else { throw NIOSSLError.failedToLoadCertificate }
        } catch {
            let problem = FileManager.default.fileExists(atPath: file) ? "\(file) holds no PEM certificate" : "\(file) does not exist"
            throw ConfigurationError(setting: "HANDOVER_SMTP_CA_FILE", problem: problem,
                                     accepted: "a readable PEM file of the certificates that sign the relay's (-----BEGIN CERTIFICATE-----)")
        }
    }
}
