import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Collects one HTTP/1 request, hands it to the server's protocol logic, and writes the answer
/// (or none, for a hanging path).
final class TestServerHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: NIOLockedValueBox<AppleIDTestServer?>
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(server: NIOLockedValueBox<AppleIDTestServer?>) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head, let server = server.withLockedValue({ $0 }) else { return }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            let request = RecordedRequest(method: head.method.rawValue, path: path, headers: headers,
                                          body: String(buffer: body))
            let keepAlive = head.isKeepAlive
            let promise = context.eventLoop.makePromise(of: TestServerResponse?.self)
            promise.completeWithTask { await server.respond(to: request) }
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { response in
                guard let response else { return }
                let (handler, context) = loopBound.value
                handler.write(response, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func write(_ response: TestServerResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(response.body.utf8.count))
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: response.body)))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { loopBound.value.close(promise: nil) }
        }
    }
}
