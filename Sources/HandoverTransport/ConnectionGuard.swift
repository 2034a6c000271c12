import NIOCore
import NIOHTTP1

/// The front of a connection's pipeline: it holds the connection's ``HTTPConnectionStateMachine``,
/// feeds it, and carries out what it says about time and raw bytes (the one timer; bytes passed
/// on or dropped; the 408 written below the parser and encoder; the close).
///
/// It sits first, where it sees the raw bytes before NIO's parser. ``HTTPConnectionHandler``, at
/// the back, reports what the parser produced and what it sends, and carries out the actions
/// those return (answer, refuse, close). Calls go one way, from the back to the front.
final class ConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var machine: HTTPConnectionStateMachine
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(limits: ConnectionLimits, maximumBodySize: Int) {
        machine = HTTPConnectionStateMachine(limits: limits, maximumBodySize: maximumBodySize)
    }

    /// Where the connection stands (tests read it).
    var state: HTTPConnectionStateMachine.State { machine.state }

    /// The bytes being passed to the parser, while they are (no copy, and nothing kept after):
    /// a request the parser cannot read fails within that call, and ``MalformedRequestAnswer``
    /// reads them to name the header field at fault.
    private(set) var lastBytes: ByteBuffer?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { apply(machine.channelActive()) }
    }

    func channelActive(context: ChannelHandlerContext) {
        apply(machine.channelActive())
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        apply(machine.channelInactive())
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard apply(machine.bytesArrived()) == .forward else { return }
        lastBytes = unwrapInboundIn(data)
        context.fireChannelRead(data)
        lastBytes = nil
    }

    // MARK: What the back of the pipeline reports

    /// The parser produced a request head.
    func headReceived(_ head: HTTPRequestHead) -> HTTPConnectionStateMachine.Action { apply(machine.headReceived(head)) }

    /// The parser produced a piece of the body.
    func bodyReceived(_ chunk: ByteBuffer) -> HTTPConnectionStateMachine.Action { apply(machine.bodyReceived(chunk)) }

    /// The parser reached the request's end.
    func endReceived() -> HTTPConnectionStateMachine.Action { apply(machine.endReceived()) }

    /// The response's end is being written.
    func responseEnding(keepAlive: Bool) { apply(machine.responseEnding(keepAlive: keepAlive)) }

    // MARK: Carrying out

    /// Runs the transition's timer change and its raw-level action; returns the action for the
    /// caller (``HTTPConnectionStateMachine/Action/respond(_:_:)`` and the 413 are the back's).
    @discardableResult
    private func apply(_ transition: HTTPConnectionStateMachine.Transition) -> HTTPConnectionStateMachine.Action {
        switch transition.timer {
        case .unchanged:
            break
        case .cancel:
            timer?.cancel()
            timer = nil
        case .start(let limit):
            timer?.cancel()
            timer = nil
            if let context {
                let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
                timer = context.eventLoop.scheduleTask(in: limit) { bound.value.fire() }
            }
        }
        guard let context else { return transition.action }
        switch transition.action {
        case .answerTimeoutAndClose:
            // Written under the parser and encoder: nothing else is being sent on this connection.
            let answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: \(Self.timeoutBody.utf8.count)\r\n\r\n\(Self.timeoutBody)"
            let channel = context.channel
            context.writeAndFlush(NIOAny(ByteBuffer(string: answer))).whenComplete { _ in channel.close(promise: nil) }
        case .close:
            context.close(promise: nil)
        default:
            break
        }
        return transition.action
    }

    private func fire() {
        timer = nil
        apply(machine.timerFired())
    }

    static let timeoutBody = #"{"error":"request_timeout","reason":"The request did not arrive in time; the connection is closed."}"#
}
