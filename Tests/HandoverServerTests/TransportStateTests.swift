@testable import HandoverServer
@testable import HandoverTransport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import Vapor

/// Each limit of the transport (issue 38), on a connection's real pipeline
/// (``HTTPTransport/configureConnection(_:application:responder:serverName:limits:date:requests:)``) over an
/// `EmbeddedChannel`: no socket, and a manual clock (`advanceTime`) instead of sleeping.
@Suite(.timeLimit(.minutes(5))) struct TransportStateTests {
    /// Answers `ok`, and `/events` with an event stream of one event.
    struct Answers: Responder {
        func respond(to request: Request) -> EventLoopFuture<Response> {
            let response = Response(status: .ok, body: .init(string: "ok"))
            if request.url.path == "/events" {
                // As ``EventStream`` makes one: a stream body (chunked, no length), and the same
                // producer for the transport.
                let write: @Sendable (any AsyncBodyStreamWriter) async throws -> Void = { writer in
                    try await writer.write(.buffer(ByteBuffer(string: "event: one\ndata: 1\n\n")))
                }
                response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
                response.body = .init(managedAsyncStream: write)
                response.storage[StreamedBody.Key.self] = StreamedBody(write: write)
            }
            return request.eventLoop.makeSucceededFuture(response)
        }
    }

    static let limits: ConnectionLimits = {
        var limits = ConnectionLimits()
        limits.idleTimeout = .seconds(30)
        limits.headerTimeout = .seconds(10)
        limits.bodyTimeout = .seconds(20)
        return limits
    }()

    /// A connection's pipeline on `channel`, made active.
    static func open(_ channel: any Channel, _ application: Application) throws {
        try HTTPTransport.configureConnection(channel, application: application, responder: Answers(), serverName: nil,
                                              limits: limits, date: HTTPDateHeader(), requests: RequestsInFlight())
    }

    /// Everything written so far, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let part = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = part { text += String(buffer: buffer) }
        }
        return text
    }

    /// A socket's half-close, which `EmbeddedChannel` does not have (it closes whole): closing
    /// the output leaves the connection open for reading, as after a 413.
    final class HalfClose: ChannelOutboundHandler {
        typealias OutboundIn = Any

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            if mode == .output { promise?.succeed(()) } else { context.close(mode: mode, promise: promise) }
        }
    }

    static func withConnection(_ body: (EmbeddedChannel, EmbeddedEventLoop) throws -> Void) async throws {
        let application = try await Application.make(.testing)
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        do {
            try channel.pipeline.syncOperations.addHandler(HalfClose())
            try open(channel, application)
            // An EmbeddedChannel connects at once (its future is already fulfilled).
            channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9), promise: nil)
            try body(channel, loop)
        } catch {
            _ = try? channel.finish()
            try await application.asyncShutdown()
            throw error
        }
        _ = try? channel.finish()
        try await application.asyncShutdown()
    }

    @Test func anIdleConnectionClosesAfterTheIdleTimeout() async throws {
        try await Self.withConnection { channel, loop in
            loop.advanceTime(by: .seconds(29))
            #expect(channel.isActive)
            loop.advanceTime(by: .seconds(1))
            #expect(!channel.isActive, "closed after 30 s with no request")
        }
    }

    @Test func aHeadTrickledLineByLineGets408AtTheHeaderTimeout() async throws {
        try await Self.withConnection { channel, loop in
            try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\n"))
            for line in 0..<3 {
                loop.advanceTime(by: .seconds(3))
                try channel.writeInbound(ByteBuffer(string: "X-Line-\(line): trickle\r\n"))
            }
            #expect(channel.isActive, "9 s after the first byte")
            loop.advanceTime(by: .seconds(1))
            #expect(try Self.written(channel).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
            #expect(!channel.isActive, "bytes do not restart the head's clock")
        }
    }

    @Test func aBodyTrickledByteByByteGets408AtTheBodyTimeout() async throws {
        try await Self.withConnection { channel, loop in
            try channel.writeInbound(ByteBuffer(string: "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"))
            for byte in 0..<9 {
                loop.advanceTime(by: .seconds(2))
                try channel.writeInbound(ByteBuffer(string: "\(byte)"))
            }
            loop.advanceTime(by: .seconds(1))
            #expect(channel.isActive, "19 s after the head")
            loop.advanceTime(by: .seconds(1))
            #expect(try Self.written(channel).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
            #expect(!channel.isActive)
        }
    }

    @Test func aDeclaredOversizedBodyIsRefusedAtOnceThenDroppedUntilTheLingerEnds() async throws {
        try await Self.withConnection { channel, loop in
            try channel.writeInbound(ByteBuffer(string: "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n"))
            #expect(try Self.written(channel).hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"), "answered before any of the body")
            let guardHandler = try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self)
            #expect(guardHandler.state == .lingering)
            try channel.writeInbound(ByteBuffer(repeating: UInt8(ascii: "a"), count: 64 << 10))
            #expect(try Self.written(channel).isEmpty, "the rest of the body is dropped, not parsed")
            loop.advanceTime(by: HTTPConnectionStateMachine.lingerTime)
            #expect(!channel.isActive)
        }
    }

    @Test func aSentBodyOverTheLimitIsRefused() async throws {
        try await Self.withConnection { channel, _ in
            try channel.writeInbound(ByteBuffer(string: "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"))
            let chunk = HTTPTransport.maximumBodySize / 2 + 1
            for _ in 0..<2 {
                try channel.writeInbound(ByteBuffer(string: String(chunk, radix: 16) + "\r\n" + String(repeating: "a", count: chunk) + "\r\n"))
            }
            #expect(try Self.written(channel).hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        }
    }

    @Test func aKeptAliveConnectionAnswersTheNextRequestThenIdlesOut() async throws {
        try await Self.withConnection { channel, loop in
            for _ in 0..<2 {
                try channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"))
                loop.run()
                let answer = try Self.written(channel)
                #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("ok"), "\(answer)")
                #expect(try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).state == .idle)
                loop.advanceTime(by: .seconds(25))
                #expect(channel.isActive)
            }
            loop.advanceTime(by: .seconds(5))
            #expect(!channel.isActive, "30 s idle after the last answer")
        }
    }

    /// An event stream's end leaves the connection kept alive and idle: the next request on it
    /// is answered, and the idle clock runs again. (An `NIOAsyncTestingChannel`, the thread-safe
    /// `EmbeddedChannel`, because the stream is written from a task.)
    @Test func aConnectionStaysAliveAfterAnEventStreamEnds() async throws {
        let application = try await Application.make(.testing)
        let channel = NIOAsyncTestingChannel()
        try await channel.eventLoop.submit { try Self.open(channel, application) }.get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9))
        func answer() async throws -> String {
            var text = ""
            while !text.hasSuffix("0\r\n\r\n") {
                let part = try await channel.waitForOutboundWrite(as: IOData.self)
                if case .byteBuffer(let buffer) = part { text += String(buffer: buffer) }
            }
            return text
        }
        try await channel.writeInbound(ByteBuffer(string: "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"))
        let stream = try await answer()
        #expect(stream.hasPrefix("HTTP/1.1 200 OK\r\n") && stream.contains("event: one\ndata: 1\n\n"), "\(stream)")
        #expect(stream.lowercased().contains("connection: keep-alive"))
        // The end is written in the same event-loop turn as the state changes; one more turn settles it.
        try await channel.eventLoop.submit {}.get()
        let state = try await channel.eventLoop.submit { try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).state }.get()
        #expect(state == .idle)
        try await channel.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"))
        var next = ""
        while !next.hasSuffix("ok") {
            let part = try await channel.waitForOutboundWrite(as: IOData.self)
            if case .byteBuffer(let buffer) = part { next += String(buffer: buffer) }
        }
        #expect(next.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(next)")
        await channel.testingEventLoop.advanceTime(by: .seconds(30))
        #expect(try await !channel.eventLoop.submit { channel.isActive }.get(), "the idle clock ran after the stream")
        _ = try? await channel.finish()
        try await application.asyncShutdown()
    }

    @Test func connectionsOverTheCapAreClosedAsTheyAreAccepted() throws {
        let listener = EmbeddedChannel()
        let cap = ConnectionCap(maximum: 2)
        try listener.pipeline.syncOperations.addHandler(cap)
        let accepted = (0..<3).map { _ in EmbeddedChannel() }
        for child in accepted {
            try child.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
            try listener.writeInbound(child as any Channel)
        }
        #expect(accepted.map(\.isActive) == [true, true, false], "the third is closed at once")
        #expect(cap.openConnections == 2)
        _ = try accepted[0].finish()
        #expect(cap.openConnections == 1, "a closed connection frees its place")
        let later = EmbeddedChannel()
        try later.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        try listener.writeInbound(later as any Channel)
        #expect(later.isActive)
        while (try? listener.readInbound(as: (any Channel).self)) != nil {}
    }

    // MARK: The state machine alone

    @Test func theMachineStartsEachClockOnceAndStopsItWhileAnswering() {
        var machine = HTTPConnectionStateMachine(limits: Self.limits, maximumBodySize: 16)
        #expect(machine.channelActive() == .init(action: .none, timer: .start(.seconds(30))))
        #expect(machine.bytesArrived() == .init(action: .forward, timer: .start(.seconds(10))))
        #expect(machine.bytesArrived() == .init(action: .forward, timer: .unchanged), "more bytes do not restart the clock")
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/a", headers: ["Content-Length": "4"])
        #expect(machine.headReceived(head) == .init(action: .none, timer: .start(.seconds(20))))
        #expect(machine.bodyReceived(ByteBuffer(string: "abcd")) == .nothing)
        #expect(machine.endReceived() == .init(action: .respond(head, ByteBuffer(string: "abcd")), timer: .cancel))
        #expect(machine.timerFired() == .nothing, "no limit while answering")
        #expect(machine.responseEnding(keepAlive: true) == .init(action: .none, timer: .start(.seconds(30))))
        #expect(machine.timerFired() == .init(action: .close, timer: .unchanged))
        #expect(machine.bytesArrived() == .init(action: .drop, timer: .unchanged), "nothing after the close")
    }

    @Test func theMachineRefusesABodyOverTheLimitAsItArrives() {
        var machine = HTTPConnectionStateMachine(limits: Self.limits, maximumBodySize: 16)
        _ = machine.bytesArrived()
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/a", headers: ["Transfer-Encoding": "chunked"])
        _ = machine.headReceived(head)
        #expect(machine.bodyReceived(ByteBuffer(string: String(repeating: "a", count: 10))) == .nothing)
        #expect(machine.bodyReceived(ByteBuffer(string: String(repeating: "a", count: 7)))
            == .init(action: .refuseOversizedBody(head), timer: .start(HTTPConnectionStateMachine.lingerTime)))
        #expect(machine.state == .lingering)
        #expect(machine.bytesArrived().action == .drop)
        #expect(machine.timerFired().action == .close)
    }
}
