import Foundation
import HandoverCore
import NIOCore
import NIOPosix
import NIOSSL

/// A small SMTP submission client (RFC 5321, STARTTLS RFC 3207, AUTH PLAIN RFC 4954) on SwiftNIO.
/// One connection per message: mail here is rare (sign-in links), so there is nothing to pool.
package struct SMTPClient: Sendable {
    package let configuration: SMTPConfiguration
    package let group: any EventLoopGroup

    package init(configuration: SMTPConfiguration, group: any EventLoopGroup) {
        self.configuration = configuration
        self.group = group
    }

    /// Sends `message`; throws ``SMTPError`` naming the step that failed.
    package func send(_ message: EmailMessage) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await self.converse(message) }
            tasks.addTask {
                try await Task.sleep(for: self.configuration.timeout)
                throw SMTPError.timedOut
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    private func converse(_ message: EmailMessage) async throws {
        let (replies, continuation) = AsyncThrowingStream<SMTPReply, Error>.makeStream()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyForwarder(continuation: continuation))
                    }
                }
                .connect(host: configuration.host, port: configuration.port).get()
        } catch {
            throw SMTPError.cannotConnect("\(configuration.host):\(configuration.port): \(error)")
        }
        defer { channel.close(promise: nil) }
        var iterator = replies.makeAsyncIterator()

        func reply(to step: String, expecting codes: Set<Int>) async throws -> SMTPReply {
            guard let reply = try await iterator.next() else { throw SMTPError.closed(step: step) }
            guard codes.contains(reply.code) else { throw SMTPError.refused(step: step, reply: reply) }
            return reply
        }
        func command(_ line: String, step: String, expecting codes: Set<Int>) async throws -> SMTPReply {
            try await channel.writeAndFlush(ByteBuffer(string: line + "\r\n"))
            return try await reply(to: step, expecting: codes)
        }

        _ = try await reply(to: "greeting", expecting: [220])
        let name = "handover.localdomain"
        var hello = try await command("EHLO \(name)", step: "EHLO", expecting: [250])
        if configuration.security == .startTLS {
            guard hello.lines.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else {
                throw SMTPError.startTLSUnavailable
            }
            _ = try await command("STARTTLS", step: "STARTTLS", expecting: [220])
            var tls = TLSConfiguration.makeClientConfiguration()
            if let file = configuration.trustedCertificatesPEMFile {
                let extra = try NIOSSLCertificate.fromPEMFile(file)
                tls.trustRoots = .default
                tls.additionalTrustRoots = [.certificates(extra)]
            }
            let context = try NIOSSLContext(configuration: tls)
            let serverName = configuration.host.first?.isNumber == true ? nil : configuration.host
            let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName)
            try await channel.pipeline.addHandler(handler, position: .first).get()
            hello = try await command("EHLO \(name)", step: "EHLO after STARTTLS", expecting: [250])
        }
        if let username = configuration.username {
            let credentials = Data("\0\(username)\0\(configuration.password ?? "")".utf8).base64EncodedString()
            _ = try await command("AUTH PLAIN \(credentials)", step: "AUTH", expecting: [235])
        }
        _ = try await command("MAIL FROM:<\(configuration.fromAddress)>", step: "MAIL FROM", expecting: [250])
        _ = try await command("RCPT TO:<\(message.to)>", step: "RCPT TO", expecting: [250, 251])
        _ = try await command("DATA", step: "DATA", expecting: [354])
        _ = try await command(message.dataSection(from: configuration.from), step: "message", expecting: [250])
        _ = try? await command("QUIT", step: "QUIT", expecting: [221])
    }
}

/// One SMTP reply: its code and the text of each line.
package struct SMTPReply: Sendable, CustomStringConvertible {
    package var code: Int
    package var lines: [String]
    package var description: String { "\(code) \(lines.joined(separator: " / "))" }
}

/// Why mail could not be sent.
package enum SMTPError: Error, CustomStringConvertible {
    case cannotConnect(String)
    case refused(step: String, reply: SMTPReply)
    case closed(step: String)
    case startTLSUnavailable
    case malformedReply(String)
    case timedOut

    package var description: String {
        switch self {
        case .cannotConnect(let detail): "cannot connect to the SMTP server \(detail)"
        case .refused(let step, let reply): "the SMTP server refused \(step): \(reply)"
        case .closed(let step): "the SMTP server closed the connection at \(step)"
        case .startTLSUnavailable: "the SMTP server does not offer STARTTLS (set HANDOVER_SMTP_STARTTLS=off only for a loopback relay)"
        case .malformedReply(let line): "the SMTP server sent a malformed reply: \(line.prefix(100))"
        case .timedOut: "the SMTP conversation timed out"
        }
    }
}

/// Splits the byte stream into SMTP replies (`250-first`, `250-more`, `250 last`).
package struct SMTPReplyDecoder: ByteToMessageDecoder {
    package typealias InboundOut = SMTPReply
    /// The most lines one reply may have.
    package static let maxReplyLines = 100
    private var pending: [String] = []

    package init() {}

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > 4096 { throw SMTPError.malformedReply("line longer than 4096 bytes") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex + 1
        var line = buffer.readString(length: length) ?? ""
        // By scalars: "\r\n" is one Character, so `hasSuffix("\n")` never sees it.
        while let last = line.unicodeScalars.last, last == "\n" || last == "\r" { line.unicodeScalars.removeLast() }
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
            throw SMTPError.malformedReply(line)
        }
        let text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""
        pending.append(text)
        // A reply's continuation lines are few (EHLO lists a dozen extensions); a server that
        // sends them without end is cut off, not collected.
        if pending.count > Self.maxReplyLines { throw SMTPError.malformedReply("a reply of more than \(Self.maxReplyLines) lines") }
        if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { return .continue }
        context.fireChannelRead(wrapInboundOut(SMTPReply(code: code, lines: pending)))
        pending.removeAll()
        return .continue
    }
}

/// Hands decoded replies to the async conversation.
package final class SMTPReplyForwarder: ChannelInboundHandler, Sendable {
    package typealias InboundIn = SMTPReply
    package let continuation: AsyncThrowingStream<SMTPReply, Error>.Continuation

    package init(continuation: AsyncThrowingStream<SMTPReply, Error>.Continuation) { self.continuation = continuation }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
    }
}
