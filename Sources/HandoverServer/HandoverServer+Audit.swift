import AsyncHTTPClient
import Foundation
import HandoverConfiguration
import HandoverCore
import NIOCore
import TransparencyLog

extension HandoverServer {
    /// Signs a checkpoint of the audit log when it grew since the last one (the background pass
    /// does it every 30 s); returns its size, or nil when there was nothing new.
    @discardableResult
    public func signAuditCheckpoint() async throws -> Int? {
        try await audit.checkpoint()?.size
    }

    /// Checks the stored audit log against its latest checkpoint (the background pass does it
    /// every 5 minutes); returns what is wrong, or nil. A new mismatch raises `audit.mismatch`.
    @discardableResult
    public func checkAuditLog() async throws -> String? {
        try await audit.selfCheck()
    }

    /// Writes the summaries of the refusal windows that have closed (``RefusalDigest``; the
    /// background pass does it every minute); returns how many were written.
    @discardableResult
    public func writeRefusalSummaries() async throws -> Int {
        try await throttle.refusals.writeClosed(on: databases.primary, now: clock.now())
    }

    /// The checkpoints' verifier key, as C2SP writes it: `<name>+<hash>+<key>`.
    public func auditVerifierKey() async throws -> String {
        try await audit.verifierKey().description
    }
}

extension HandoverServer {
    /// Sends what each SIEM has not yet received (the background pass does it every second);
    /// returns how many messages went out.
    @discardableResult
    public func streamAuditLog() async throws -> Int {
        try await siem?.pass() ?? 0
    }

    /// The SIEMs the configuration names, over the server's database.
    static func siemStream(_ configuration: ServerConfiguration, databases: ServerDatabases, clock: ServerClock,
                           group: any EventLoopGroup, http: HTTPClient) -> SIEMStream? {
        let hostname = configuration.publicURL?.host ?? configuration.host
        var destinations: [any SIEMDestination] = configuration.audit.syslog.map {
            SyslogTLSDestination(host: $0.host, port: $0.port, trustedCertificates: $0.trustedCertificates, hostname: hostname, group: group)
        }
        if let splunk = configuration.audit.splunk {
            destinations.append(SplunkHECDestination(url: splunk.url, token: splunk.token, hostname: hostname, http: http))
        }
        guard !destinations.isEmpty, let sql = try? databases.sql() else { return nil }
        return SIEMStream(destinations: destinations, sql: sql, reads: try? databases.readSQL(), clock: clock)
    }
}
