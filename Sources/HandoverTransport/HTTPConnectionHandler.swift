import NIOCore
import NIOHTTP1
import Vapor

/// One HTTP/1.1 connection of ``HTTPTransport``: NIO's parser and pipelining helper in front of
/// it, Vapor's responder (router, middleware, routes) behind it.
///
/// A request is collected whole (at most ``HTTPTransport/maximumBodySize`` bytes; more is a 413
/// and the connection closes), becomes a Vapor `Request`, and the responder's `Response` is
/// written back: a buffered body at once, a ``StreamedBody`` (Server-Sent Events) chunk by
/// chunk. NIO's `HTTPServerPipelineHandler` hands this handler one request at
/// a time, so pipelined requests are answered in order. What the parser produces goes to the
/// ``ConnectionGuard`` at the front, whose state machine says what to do with it.
final class HTTPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let application: Application
    private let responder: any Responder
    private let serverName: String?
    private let date: HTTPDateHeader
    /// The front of the pipeline, which holds this connection's state (``HTTPConnectionStateMachine``).
    private let connection: ConnectionGuard
    /// Every connection's requests whose work has not ended, which stopping the transport waits for.
    private let requests: RequestsInFlight

    init(application: Application, responder: any Responder, serverName: String?, date: HTTPDateHeader, connection: ConnectionGuard,
         requests: RequestsInFlight) {
        self.connection = connection
        self.requests = requests
        self.application = application
        self.responder = responder
        self.serverName = serverName
        self.date = date
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: HTTPConnectionStateMachine.Action
        switch unwrapInboundIn(data) {
        case .head(let head): action = connection.headReceived(head)
        case .body(let chunk): action = connection.bodyReceived(chunk)
        case .end: action = connection.endReceived()
        }
        switch action {
        case .respond(let head, let body): respond(to: head, body: body, context: context)
        case .refuseOversizedBody(let head): refuseOversizedBody(head, context: context)
        case .none, .forward, .drop, .answerTimeoutAndClose, .close: break  // the front carried these out
        }
    }

    /// Answers 413 at once and stops sending; what the client still sends of the body is read
    /// and dropped for a moment (a lingering close, so the answer is not lost to a reset), then
    /// the connection closes.
    private func refuseOversizedBody(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let error = #"{"error":"payload_too_large","reason":"The request body is larger than the server accepts (256 KB)."}"#
        var headers = HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Content-Length", String(error.utf8.count))])
        finishHead(&headers, keepAlive: false)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .payloadTooLarge, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: error)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(mode: .output, promise: nil) }
    }

    private func respond(to head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        let keepAlive = head.isKeepAlive
        let request = Request(
            application: application,
            method: head.method,
            // `URI(path:)`, as Vapor's own server builds it: a request target has no scheme or host.
            url: URI(path: head.uri),
            version: head.version,
            headersNoUpdate: head.headers,
            collectedBody: body,
            remoteAddress: context.channel.remoteAddress,
            logger: application.logger,
            byteBufferAllocator: context.channel.allocator,
            on: context.eventLoop
        )
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        requests.begin()
        responder.respond(to: request).hop(to: context.eventLoop).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let response):
                handler.write(response, for: head, keepAlive: keepAlive, context: context)
            case .failure(let error):
                handler.requests.end()
                // The error middleware turns route errors into responses; this is a failure below it.
                handler.application.logger.report(error: error)
                var headers = HTTPHeaders([("Content-Length", "0")])
                handler.finishHead(&headers, keepAlive: false)
                handler.send(HTTPResponseHead(version: head.version, status: .internalServerError, headers: headers),
                             body: nil, keepAlive: false, context: context)
            }
        }
    }

    /// Writes a Vapor response: its head, then its body as the request and status allow. The
    /// request's work ends once its body is produced.
    private func write(_ response: Response, for request: HTTPRequestHead, keepAlive requested: Bool, context: ChannelHandlerContext) {
        var headers = response.headers
        // A route may end the connection (`Connection: close`, as a rate-limited answer does).
        let keepAlive = requested && headers.first(name: "connection")?.lowercased() != "close"
        headers.remove(name: "connection")
        finishHead(&headers, keepAlive: keepAlive)
        let head = HTTPResponseHead(version: request.version, status: response.status, headers: headers)
        if request.method == .HEAD || response.status == .noContent || response.status == .notModified {
            requests.end()
            send(head, body: nil, keepAlive: keepAlive, context: context)
        } else if let streamed = response.storage[StreamedBody.Key.self] {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.flush()
            stream(streamed, keepAlive: keepAlive, channel: context.channel)
        } else if let buffer = response.body.buffer {
            requests.end()
            send(head, body: buffer, keepAlive: keepAlive, context: context)
        } else {
            // A body stream of Vapor's own kind: collected, then sent.
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            response.body.collect(on: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                handler.requests.end()
                handler.send(head, body: try? result.get(), keepAlive: keepAlive, context: context)
            }
        }
    }

    /// Sends a streamed body as it is written, then the end; a failed write, or the transport
    /// stopping (which cancels the producer), closes the connection.
    private func stream(_ streamed: StreamedBody, keepAlive: Bool, channel: any Channel) {
        let writer = ChannelBodyWriter(channel: channel)
        let bound = NIOLoopBound(self, eventLoop: channel.eventLoop)
        requests.stream {
            do {
                try await streamed.write(writer)
                // The state changes in the same event-loop turn as the end is written, before it:
                // writing the end releases a request the pipelining handler held back, and that
                // request's head must find this connection idle, not be reset by a late callback.
                try await channel.eventLoop.flatSubmit {
                    bound.value.connection.responseEnding(keepAlive: keepAlive)
                    let written = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
                    if !keepAlive { written.whenComplete { _ in channel.close(promise: nil) } }
                    return written
                }.get()
            } catch {
                try? await channel.close()
            }
        }
    }

    /// Connection, Date and Server, as Vapor's own server adds them.
    private func finishHead(_ headers: inout HTTPHeaders, keepAlive: Bool) {
        headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close")
        headers.add(name: "date", value: date.current())
        if let serverName { headers.add(name: "server", value: serverName) }
    }

    private func send(_ head: HTTPResponseHead, body: ByteBuffer?, keepAlive: Bool, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        connection.responseEnding(keepAlive: keepAlive)
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Writes a streamed body's chunks to the channel, flushed one by one (an event must not wait).
private struct ChannelBodyWriter: AsyncBodyStreamWriter {
    let channel: any Channel

    func write(_ result: BodyStreamResult) async throws {
        switch result {
        case .buffer(let buffer):
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)))
        case .end:
            break // the transport ends the response once the producer returns
        case .error(let error):
            throw error
        }
    }
}
