import APNsTestServer
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// `GET /push-inbox/<deviceToken>`: `{"payloads":[<push JSON>, …]}`, oldest first: the pushes
/// the loopback APNs server accepted for that token, for a simulated phone to read.
struct PushInboxServer {
    let channel: any Channel
    let port: Int

    static func start(server: APNsTestServer) async throws -> PushInboxServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(InboxHandler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return PushInboxServer(channel: channel, port: channel.localAddress?.port ?? 0)
    }

    final class InboxHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: APNsTestServer

        init(server: APNsTestServer) {
            self.server = server
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let prefix = "/push-inbox/"
            var status = HTTPResponseStatus.ok
            var body: String
            if head.method == .GET, head.uri.hasPrefix(prefix) {
                let token = String(head.uri.dropFirst(prefix.count)).lowercased()
                let payloads = server.requests(for: token).map { String(decoding: $0.payload, as: UTF8.self) }
                body = #"{"payloads":["# + payloads.joined(separator: ",") + "]}"
            } else {
                status = .notFound
                body = #"{"error":"not_found","reason":"Only GET /push-inbox/<device token> is served here."}"#
            }
            let headers = HTTPHeaders([("content-type", "application/json"), ("content-length", String(body.utf8.count))])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
