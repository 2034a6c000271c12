import NIOConcurrencyHelpers
import NIOCore

/// Keeps at most `maximum` connections open: on the listening channel, it closes a newly
/// accepted connection at once when that many are open already, so one client that opens
/// sockets without end cannot take every file descriptor of the process.
final class ConnectionCap: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    let maximum: Int
    private let open = NIOLockedValueBox(0)

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Connections open now.
    var openConnections: Int { open.withLockedValue { $0 } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let admitted = open.withLockedValue { count -> Bool in
            guard count < maximum else { return false }
            count += 1
            return true
        }
        guard admitted else {
            child.close(promise: nil)
            return
        }
        child.closeFuture.whenComplete { [open] _ in open.withLockedValue { $0 -= 1 } }
        context.fireChannelRead(data)
    }
}
