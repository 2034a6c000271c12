import NIOCore
import NIOEmbedded
import Mail
import Testing
@testable import HandoverServer

/// An SMTP server that sends a reply's continuation lines without end is cut off after a
/// hundred lines, not collected (issue 36: every outgoing client reads a bounded reply).
struct SMTPReplyDecoderTests {
    @Test func aReplyOfEndlessContinuationLinesIsRefused() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPReplyDecoder()))
        var thrown: (any Error)?
        for _ in 0..<(SMTPReplyDecoder.maxReplyLines + 5) where thrown == nil {
            do { try channel.writeInbound(ByteBuffer(string: "250-PIPELINING\r\n")) } catch { thrown = error }
        }
        #expect("\(thrown.map { "\($0)" } ?? "nothing")".contains("more than 100 lines"))
        _ = try? channel.finish()
    }

    @Test func aUsualMultiLineReplyIsOneReply() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPReplyDecoder()))
        try channel.writeInbound(ByteBuffer(string: "250-mail.example.com\r\n250-STARTTLS\r\n250 SIZE 35882577\r\n"))
        let reply = try #require(try channel.readInbound(as: SMTPReply.self))
        #expect(reply.code == 250 && reply.lines == ["mail.example.com", "STARTTLS", "SIZE 35882577"], "\(reply)")
        _ = try channel.finish()
    }
}
