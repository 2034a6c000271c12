import Foundation

/// How the audit log is kept and where it streams (issue 42).
public struct AuditSettings: Sendable {
    /// How often a checkpoint is signed while the log grows (`HANDOVER_AUDIT_CHECKPOINT_INTERVAL`,
    /// 1 to 60 seconds; 30 by default, so the log is never a minute ahead of its last checkpoint).
    public var checkpointInterval: TimeInterval = 30
    /// How often the stored log is checked against its last checkpoint (5 minutes).
    public var selfCheckInterval: TimeInterval = 300
    /// Syslog receivers over TLS (RFC 5424 messages, RFC 5425 framing): `HANDOVER_SIEM_SYSLOG`.
    public var syslog: [SyslogDestination] = []
    /// A Splunk HTTP Event Collector: `HANDOVER_SIEM_SPLUNK_URL` and `HANDOVER_SIEM_SPLUNK_TOKEN`.
    public var splunk: SplunkDestination?

    public init() {}

    /// One syslog receiver.
    public struct SyslogDestination: Sendable, Equatable {
        public var host: String
        public var port: Int
        /// A PEM file of the certificate authorities to trust instead of the system's
        /// (`HANDOVER_SIEM_SYSLOG_CA`).
        public var trustedCertificates: String?

        public init(host: String, port: Int, trustedCertificates: String? = nil) {
            self.host = host
            self.port = port
            self.trustedCertificates = trustedCertificates
        }

        /// Its name in the delivery log: `syslog://host:port`.
        public var name: String { "syslog://\(host):\(port)" }
    }

    /// One Splunk HTTP Event Collector.
    public struct SplunkDestination: Sendable, Equatable {
        /// The collector's base URL, such as `https://splunk.example.org:8088`.
        public var url: URL
        /// The HEC token, sent as `Authorization: Splunk <token>`.
        public var token: String

        public init(url: URL, token: String) {
            self.url = url
            self.token = token
        }

        /// Its name in the delivery log: the collector's URL (never the token).
        public var name: String { "splunk:" + url.absoluteString }
    }
}
