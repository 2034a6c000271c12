import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection of ``HTTPTransport``, as a value: every event (bytes arrive, the
/// parser produces a part, a response is sent, the connection's timer fires) moves it on and
/// returns what to do. ``ConnectionGuard`` feeds it and carries the actions out; it owns no
/// channel and no clock, so each limit is tested without either.
///
/// The limits, so that a slow or silent client cannot hold a socket (and in the end every file
/// descriptor) for ever:
/// - **idle**: a kept-alive connection with no request on the way is closed after
///   ``ConnectionLimits/idleTimeout``;
/// - **head**: once the first byte of a request arrives, its whole head (request line and
///   headers) must follow within ``ConnectionLimits/headerTimeout``; otherwise 408 and close;
/// - **body**: a declared body must arrive whole within ``ConnectionLimits/bodyTimeout`` of the
///   head; otherwise 408 and close;
/// - **size**: a body over ``maximumBodySize`` (declared or sent) is answered 413 at once; the
///   rest of it is read and dropped for ``lingerTime`` (so the answer is not lost to a reset),
///   then the connection closes.
///
/// While the server answers (a route working, an event stream open) no limit runs.
struct HTTPConnectionStateMachine {
    enum State: Equatable {
        /// Between requests: the idle clock runs.
        case idle
        /// A request's first bytes arrived, its head is not whole yet: the head clock runs.
        case readingHead
        /// The head arrived; the body is being collected: the body clock runs.
        case readingBody(HTTPRequestHead, ByteBuffer?)
        /// The request is whole and the server is answering: no clock.
        case responding
        /// A refused request was answered; what still arrives is dropped until the linger
        /// clock ends the connection.
        case lingering
        /// Closed, or closing: nothing more happens.
        case closed
    }

    /// What the connection's one timer should do.
    enum Timer: Equatable {
        case unchanged
        case cancel
        /// Cancel any running timer and start one for this long.
        case start(TimeAmount)
    }

    /// What to do with the event's data, besides the timer.
    enum Action: Equatable {
        case none
        /// Raw bytes: pass them on to the parser.
        case forward
        /// Raw bytes of a refused request: drop them.
        case drop
        /// The request is whole: hand it to the responder.
        case respond(HTTPRequestHead, ByteBuffer?)
        /// Answer 413 and close the output; the linger clock is running.
        case refuseOversizedBody(HTTPRequestHead)
        /// Answer 408 (below the parser and encoder) and close.
        case answerTimeoutAndClose
        /// Close the connection.
        case close
    }

    /// An event's outcome.
    struct Transition: Equatable {
        var action: Action
        var timer: Timer

        static let nothing = Transition(action: .none, timer: .unchanged)
    }

    /// How long a refused request's body is read and dropped before the connection closes.
    static let lingerTime = TimeAmount.seconds(2)

    let limits: ConnectionLimits
    /// The largest request body collected.
    let maximumBodySize: Int
    private(set) var state = State.idle

    init(limits: ConnectionLimits, maximumBodySize: Int) {
        self.limits = limits
        self.maximumBodySize = maximumBodySize
    }

    /// The connection is open: the idle clock starts.
    mutating func channelActive() -> Transition {
        guard state == .idle else { return .nothing }
        return Transition(action: .none, timer: .start(limits.idleTimeout))
    }

    /// Raw bytes arrived, before the parser.
    mutating func bytesArrived() -> Transition {
        switch state {
        case .idle:
            state = .readingHead
            return Transition(action: .forward, timer: .start(limits.headerTimeout))
        case .readingHead, .readingBody, .responding:
            // While answering, a pipelined request's bytes wait in NIO's pipelining handler.
            return Transition(action: .forward, timer: .unchanged)
        case .lingering, .closed:
            return Transition(action: .drop, timer: .unchanged)
        }
    }

    /// The parser produced a request head. A declared body over the limit is refused now,
    /// without waiting for it (a client that announces a gigabyte and sends it slowly gets its
    /// answer at once).
    mutating func headReceived(_ head: HTTPRequestHead) -> Transition {
        switch state {
        case .idle, .readingHead:
            // Idle too: a pipelined request's head, held back while the last one was answered.
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maximumBodySize {
                return refuse(head)
            }
            state = .readingBody(head, nil)
            return Transition(action: .none, timer: .start(limits.bodyTimeout))
        case .readingBody, .responding, .lingering, .closed:
            return .nothing
        }
    }

    /// The parser produced a piece of the body.
    mutating func bodyReceived(_ chunk: ByteBuffer) -> Transition {
        guard case .readingBody(let head, var body) = state else { return .nothing }
        if (body?.readableBytes ?? 0) + chunk.readableBytes > maximumBodySize {
            return refuse(head)
        }
        if body == nil {
            body = chunk
        } else {
            var chunk = chunk
            body!.writeBuffer(&chunk)
        }
        state = .readingBody(head, body)
        return .nothing
    }

    /// The parser reached the request's end.
    mutating func endReceived() -> Transition {
        switch state {
        case .readingBody(let head, let body):
            state = .responding
            return Transition(action: .respond(head, body), timer: .cancel)
        case .lingering:
            // The whole refused body arrived with its answer already sent: nothing to wait for.
            state = .closed
            return Transition(action: .close, timer: .cancel)
        case .idle, .readingHead, .responding, .closed:
            return .nothing
        }
    }

    /// The response's end is being written. With keep-alive the connection waits for the next
    /// request (the idle clock starts); without, it closes once the end is written.
    mutating func responseEnding(keepAlive: Bool) -> Transition {
        guard state == .responding else { return .nothing }
        if keepAlive {
            state = .idle
            return Transition(action: .none, timer: .start(limits.idleTimeout))
        }
        state = .closed
        return Transition(action: .none, timer: .cancel)
    }

    /// The connection's timer fired.
    mutating func timerFired() -> Transition {
        switch state {
        case .idle, .lingering:
            state = .closed
            return Transition(action: .close, timer: .unchanged)
        case .readingHead, .readingBody:
            state = .closed
            return Transition(action: .answerTimeoutAndClose, timer: .unchanged)
        case .responding, .closed:
            return .nothing
        }
    }

    /// The connection closed.
    mutating func channelInactive() -> Transition {
        state = .closed
        return Transition(action: .none, timer: .cancel)
    }

    private mutating func refuse(_ head: HTTPRequestHead) -> Transition {
        state = .lingering
        return Transition(action: .refuseOversizedBody(head), timer: .start(Self.lingerTime))
    }
}
