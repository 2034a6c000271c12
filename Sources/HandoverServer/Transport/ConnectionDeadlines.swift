import NIOCore

/// Time limits of one connection, so that a slow or silent client cannot hold a socket (and in
/// the end every file descriptor) for ever:
///
/// - **idle**: a kept-alive connection with no request on the way is closed after
///   ``ConnectionLimits/idleTimeout``;
/// - **head**: once the first byte of a request arrives, its whole head (request line and
///   headers) must follow within ``ConnectionLimits/headerTimeout``; otherwise 408 and close
///   (a client that trickles header lines);
/// - **body**: a declared body must arrive whole within ``ConnectionLimits/bodyTimeout`` of the
///   head; otherwise 408 and close (a client that trickles its body).
///
/// While the server answers (a route working, an event stream open) no limit runs.
///
/// The handler sits first in the pipeline, where it sees the raw bytes before NIO's parser;
/// ``HTTPConnectionHandler`` tells it when a head is complete, a request is whole, and a response
/// is sent.
final class ConnectionDeadlines: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Phase: Equatable {
        case idle
        case readingHead
        case readingBody
        case responding
        /// A refused request's answer is sent; the rest of its body is dropped until the
        /// connection closes, at most ``ConnectionDeadlines/lingerTime`` later.
        case lingering
    }

    /// How long a refused request's body is read and dropped before the connection closes.
    static let lingerTime = TimeAmount.seconds(2)

    private let limits: ConnectionLimits
    private(set) var phase = Phase.idle
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { enter(.idle) }
    }

    func channelActive(context: ChannelHandlerContext) {
        enter(.idle)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if phase == .idle { enter(.readingHead) }
        if phase == .lingering { return }  // the rest of a refused body: dropped
        context.fireChannelRead(data)
    }

    /// The parser produced a request head: the body clock starts.
    func headReceived() { enter(.readingBody) }

    /// The request is whole: no limit while the server answers.
    func requestComplete() { enter(.responding) }

    /// A request was refused and answered: close soon, whatever still arrives.
    func linger() { enter(.lingering) }

    /// The response is sent and the connection stays open: the idle clock starts.
    func responseSent() { enter(.idle) }

    private func enter(_ next: Phase) {
        phase = next
        timer?.cancel()
        timer = nil
        guard let context else { return }
        let limit: TimeAmount
        switch next {
        case .idle: limit = limits.idleTimeout
        case .readingHead: limit = limits.headerTimeout
        case .readingBody: limit = limits.bodyTimeout
        case .lingering: limit = Self.lingerTime
        case .responding: return
        }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: limit) { bound.value.expire() }
    }

    private func expire() {
        guard let context else { return }
        timer = nil
        switch phase {
        case .idle, .responding, .lingering:
            context.close(promise: nil)
        case .readingHead, .readingBody:
            // Written under the parser and encoder: nothing else is being sent on this connection.
            let answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: \(Self.timeoutBody.utf8.count)\r\n\r\n\(Self.timeoutBody)"
            let channel = context.channel
            context.writeAndFlush(NIOAny(ByteBuffer(string: answer))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    static let timeoutBody = #"{"error":"request_timeout","reason":"The request did not arrive in time; the connection is closed."}"#
}
