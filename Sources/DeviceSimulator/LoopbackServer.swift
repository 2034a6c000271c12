import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1 server on 127.0.0.1 and a free port, serving fixed responses by path: the
/// AASA files and web pages the simulated phone fetches, and the demo's app backends; a path may
/// instead be answered by a closure (``setHandler(_:_:)``), as the bench's badge directory is.
public final class LoopbackServer: Sendable {
    /// A request as it arrived (bodies kept up to 64 KB).
    public struct ReceivedRequest: Sendable {
        public var method: String
        /// The request target, query included.
        public var target: String
        public var body: String
    }

    /// A fixed response.
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String
        public var body: String

        public init(status: Int = 200, contentType: String = "text/html; charset=utf-8", body: String) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// Answers a request at one path; called on the server's event loop, so it must not block.
    public typealias Handler = @Sendable (ReceivedRequest) -> Response

    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let routes: NIOLockedValueBox<[String: Response]>
    private let handlers: NIOLockedValueBox<[String: Handler]>
    private let log: NIOLockedValueBox<[ReceivedRequest]>

    /// Starts a server on `127.0.0.1` and `port`, or a port the system picks when it is 0.
    public static func start(routes: [String: Response] = [:], port: Int = 0) async throws -> LoopbackServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = NIOLockedValueBox(routes)
        let handlers = NIOLockedValueBox<[String: Handler]>([:])
        let log = NIOLockedValueBox<[ReceivedRequest]>([])
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RouteHandler(routes: box, handlers: handlers, log: log))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        return LoopbackServer(channel: channel, group: group, routes: box, handlers: handlers, log: log)
    }

    private init(channel: any Channel, group: MultiThreadedEventLoopGroup, routes: NIOLockedValueBox<[String: Response]>,
                 handlers: NIOLockedValueBox<[String: Handler]>, log: NIOLockedValueBox<[ReceivedRequest]>) {
        self.channel = channel
        self.group = group
        self.routes = routes
        self.handlers = handlers
        self.log = log
        port = channel.localAddress?.port ?? 0
    }

    /// `http://127.0.0.1:<port>`.
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// Serves `response` at `path` (the request target without its query).
    public func setRoute(_ path: String, _ response: Response) {
        routes.withLockedValue { $0[path] = response }
    }

    /// Answers every request at `path` (the request target without its query) with what
    /// `handler` returns for it; a handler takes precedence over a fixed response at that path.
    public func setHandler(_ path: String, _ handler: @escaping Handler) {
        handlers.withLockedValue { $0[path] = handler }
    }

    /// Request targets received so far, in order.
    public var requests: [String] { log.withLockedValue { $0.map(\.target) } }

    /// Requests received so far, in order, with their methods and bodies.
    public var received: [ReceivedRequest] { log.withLockedValue { $0 } }

    /// Closes the socket and stops the event loop.
    public func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

private final class RouteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: NIOLockedValueBox<[String: LoopbackServer.Response]>
    private let handlers: NIOLockedValueBox<[String: LoopbackServer.Handler]>
    private let log: NIOLockedValueBox<[LoopbackServer.ReceivedRequest]>
    private var method = "GET"
    private var body = ByteBuffer()
    private var target = "/"
    private var keepAlive = false

    init(routes: NIOLockedValueBox<[String: LoopbackServer.Response]>, handlers: NIOLockedValueBox<[String: LoopbackServer.Handler]>,
         log: NIOLockedValueBox<[LoopbackServer.ReceivedRequest]>) {
        self.routes = routes
        self.handlers = handlers
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            target = head.uri
            method = head.method.rawValue
            keepAlive = head.isKeepAlive
            body.clear()
        case .body(var part):
            if body.readableBytes + part.readableBytes <= 65_536 { body.writeBuffer(&part) }
        case .end:
            let uri = target
            let received = LoopbackServer.ReceivedRequest(method: method, target: uri, body: String(buffer: body))
            log.withLockedValue { $0.append(received) }
            let path = String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            let response = handlers.withLockedValue { $0[path] }.map { $0(received) }
                ?? routes.withLockedValue { $0[path] }
                ?? LoopbackServer.Response(status: 404, contentType: "text/plain", body: "not found\n")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: response.contentType)
            headers.add(name: "Content-Length", value: String(response.body.utf8.count))
            headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: response.body)))), promise: nil)
            let keepAlive = self.keepAlive
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { loopBound.value.close(promise: nil) }
            }
        }
    }
}
