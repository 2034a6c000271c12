import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import Vapor

/// The HTTP/1.1 server under `handover serve`: SwiftNIO's parser, encoder and pipelining helper,
/// and Vapor's responder (router, middleware, routes) for every request. Installed with
/// `application.servers.use`, Vapor's own extension point for a server.
///
/// Why not Vapor's own server: it limits only how long a connection may sit idle (`idleTimeout`,
/// reset by every byte). It has no deadline for a request's head or body and no cap on open
/// connections, so a client that trickles a header line every few seconds, or opens sockets
/// until the file-descriptor limit, holds the server. Run on Vapor's server, `SlowClientTests`
/// fails (docs/architecture.md gives the measurement). This transport adds those limits
/// (``ConnectionGuard`` with its ``HTTPConnectionStateMachine``, ``ConnectionCap``) around NIO's own parser and pipelining helper,
/// and hands every request to Vapor's responder.
///
/// What it leaves out of Vapor's server, none of which `handover serve` uses: TLS and HTTP/2
/// (devices reach the server through a TLS proxy), WebSocket upgrades, request decompression and
/// streamed request bodies (a body is collected whole, up to ``maximumBodySize``). Streamed
/// response bodies are the ``StreamedBody`` that ``EventStream`` attaches.
package final class HTTPTransport: Vapor.Server, Sendable {
    /// The largest request body read; a larger one is answered 413 and the connection closed.
    /// Four times the largest body a route takes (a phone's signed answer, 64 KB).
    package static let maximumBodySize = 256 << 10

    private let application: Application
    private let serverName: String?
    private let shutdownTimeout: TimeAmount
    private let limits: ConnectionLimits
    /// Closes connections accepted beyond the limit.
    let cap: ConnectionCap
    private let date = HTTPDateHeader()
    /// The requests handed to the responder whose work has not ended; ``shutdown()`` waits for them.
    let requests = RequestsInFlight()
    private let running = NIOLockedValueBox<(channel: any Channel, quiesce: ServerQuiescingHelper)?>(nil)
    private let stopped: EventLoopPromise<Void>

    package init(application: Application, serverName: String?, shutdownTimeout: TimeAmount = .seconds(10),
         limits: ConnectionLimits = ConnectionLimits()) {
        self.application = application
        self.limits = limits
        self.cap = ConnectionCap(maximum: limits.effectiveMaximumConnections)
        self.serverName = serverName
        self.shutdownTimeout = shutdownTimeout
        self.stopped = application.eventLoopGroup.any().makePromise()
    }

    deinit {
        stopped.succeed()  // NIO checks that no promise is dropped unfulfilled
    }

    /// The bound address (the real port when 0 was asked for); nil before `start`.
    package var localAddress: SocketAddress? {
        running.withLockedValue { $0?.channel.localAddress }
    }

    package var onShutdown: EventLoopFuture<Void> { stopped.futureResult }

    package func start(address: BindAddress?) throws {
        try bind(address).wait()
    }

    package func start(address: BindAddress?) async throws {
        try await bind(address).get()
    }

    private func bind(_ address: BindAddress?) -> EventLoopFuture<Void> {
        let group = application.eventLoopGroup
        let quiesce = ServerQuiescingHelper(group: group)
        let responder = application.responder.current
        let application = application, serverName = serverName, date = date, limits = limits, cap = cap, requests = requests
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(cap)
                    try channel.pipeline.syncOperations.addHandler(quiesce.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configureConnection(channel, application: application, responder: responder, serverName: serverName,
                                                 limits: limits, date: date, requests: requests)
                }
            }
        let bound: EventLoopFuture<any Channel>
        switch address ?? .hostname(nil, port: nil) {
        case .hostname(let host, let port):
            bound = bootstrap.bind(host: host ?? "127.0.0.1", port: port ?? 8080)
        case .unixDomainSocket(let path):
            bound = bootstrap.bind(unixDomainSocketPath: path)
        }
        bound.whenFailure { _ in quiesce.initiateShutdown(promise: nil) }
        return bound.map { channel in
            self.running.withLockedValue { $0 = (channel, quiesce) }
            if let bound = channel.localAddress, let ip = bound.ipAddress, let port = bound.port {
                self.application.logger.notice("Server started on http://\(bound.protocol == .inet6 ? "[\(ip)]" : ip):\(port)")
            }
        }
    }

    /// One connection's pipeline, on its event loop: the ``ConnectionGuard`` first, on the raw
    /// bytes; then NIO's parser, encoder and pipelining assistance (one request at a time,
    /// answered in order, quiescing on shutdown); ``MalformedRequestAnswer`` (the API's JSON 400
    /// for what does not parse, naming the header field at fault); then
    /// ``HTTPConnectionHandler``, which hands each request to `responder`.
    static func configureConnection(_ channel: any Channel, application: Application, responder: any Responder, serverName: String?,
                                    limits: ConnectionLimits, date: HTTPDateHeader, requests: RequestsInFlight) throws {
        let connection = ConnectionGuard(limits: limits, maximumBodySize: maximumBodySize)
        try channel.pipeline.syncOperations.addHandler(connection)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
        try channel.pipeline.syncOperations.addHandler(MalformedRequestAnswer(connection: connection))
        try channel.pipeline.syncOperations.addHandler(HTTPConnectionHandler(
            application: application, responder: responder, serverName: serverName, date: date, connection: connection,
            requests: requests))
    }

    package func shutdown() {
        stop().whenComplete { _ in }
    }

    /// Ends the event streams still open (each lasts until its run ends; its client reconnects),
    /// stops as ``stop()`` does, then waits for every request handed to the responder to end (at
    /// most `shutdownTimeout` more): a route runs on after its client has gone, and
    /// `HandoverServer.shutdown` closes the databases next.
    package func shutdown() async {
        requests.cancelStreams()
        try? await stop().get()
        requests.cancelStreams()  // one a kept-alive connection asked for in the meantime
        let running = requests.count
        let seconds = shutdownTimeout.nanoseconds / 1_000_000_000
        if running > 0 {
            application.logger.notice("Waiting for the requests still running (\(running)), at most \(seconds) s")
        }
        let loop = application.eventLoopGroup.any()
        if await !requests.idle(within: shutdownTimeout, on: loop) {
            application.logger.warning("\(requests.count) requests still running \(seconds) s after the transport stopped; stopping anyway")
        }
    }

    /// Stops accepting, lets each connection finish the response it is sending (at most
    /// `shutdownTimeout`), then closes what is left.
    private func stop() -> EventLoopFuture<Void> {
        guard let (channel, quiesce) = running.withLockedValue({ value in defer { value = nil }; return value }) else {
            stopped.succeed()  // never started, or already stopped (a second success is ignored)
            return application.eventLoopGroup.any().makeSucceededVoidFuture()
        }
        // Whichever comes first ends the wait (a promise's second success is ignored).
        let loop = channel.eventLoop
        let done = loop.makePromise(of: Void.self)
        let drained = loop.makePromise(of: Void.self)
        quiesce.initiateShutdown(promise: drained)
        let (logger, timeout) = (application.logger, shutdownTimeout)
        let timer = loop.scheduleTask(in: timeout) {
            logger.warning("Connections still open after \(timeout.nanoseconds / 1_000_000_000) s; stopping anyway")
            done.succeed()
        }
        drained.futureResult.whenComplete { _ in
            timer.cancel()
            done.succeed()
        }
        let stopped = self.stopped
        return done.futureResult.always { _ in stopped.succeed() }
    }
}
