import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A syslog receiver over TLS (RFC 5425), such as rsyslog with its gtls driver: each batch goes
/// over a fresh connection, framed by octet counting, and the connection is closed with TLS's
/// `close_notify` once every byte was written. (Syslog has no acknowledgement: a batch whose
/// connection fails is sent again whole, at least once; a fresh connection per batch means no
/// batch is written into a connection the receiver already dropped.)
package struct SyslogTLSDestination: SIEMDestination {
    package let host: String
    package let port: Int
    package let trustedCertificates: String?
    /// The server's public host, as each message's HOSTNAME.
    package let hostname: String
    package let group: any EventLoopGroup

    package init(host: String, port: Int, trustedCertificates: String?, hostname: String, group: any EventLoopGroup) {
        self.host = host
        self.port = port
        self.trustedCertificates = trustedCertificates
        self.hostname = hostname
        self.group = group
    }

    package var name: String { "syslog://\(host):\(port)" }

    package func send(_ messages: [SIEMMessage]) async throws {
        guard !messages.isEmpty else { return }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustedCertificates {
            tls.trustRoots = .default
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(trustedCertificates))]
        }
        let context = try NIOSSLContext(configuration: tls)
        let serverName = host.first?.isNumber == true || host.contains(":") ? nil : host
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: serverName))
                }
            }
            .connect(host: host, port: port).get()
        do {
            var buffer = channel.allocator.buffer(capacity: 64 * 1024)
            for message in messages {
                buffer.writeBytes(SyslogMessage.frame(SyslogMessage.format(message, hostname: hostname)))
                if buffer.readableBytes > 60 * 1024 {
                    try await channel.writeAndFlush(buffer)
                    buffer.clear()
                }
            }
            try await channel.writeAndFlush(buffer)
        } catch {
            channel.close(promise: nil)
            throw error
        }
        // Every byte was written. rsyslog's GnuTLS answers `close_notify` by closing the socket
        // without its own, which NIOSSL reports as an unclean shutdown: that is the end of a
        // batch it read, not a failure (sending the batch again would duplicate it).
        try? await channel.close()
    }
}
