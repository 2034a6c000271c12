import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Reads one HTTP/2 stream (as HTTP/1 parts, through `HTTP2FramePayloadToHTTP1ServerCodec`),
/// answers it by ``APNsProtocol``, and records it.
final class APNsStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: NIOLockedValueBox<APNsTestState>
    private let now: @Sendable () -> Date
    private var head: HTTPRequestHead?
    private var body = Data()

    init(state: NIOLockedValueBox<APNsTestState>, now: @escaping @Sendable () -> Date) {
        self.state = state
        self.now = now
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let buffer):
            // Keep reading past the limit only far enough to know it was passed.
            if body.count <= 64 * 1024 { body.append(contentsOf: buffer.readableBytesView) }
        case .end:
            guard let head else { return }
            respond(context: context, head: head)
            self.head = nil
        }
    }

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead) {
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let request = IncomingRequest(method: head.method.rawValue, path: path, headers: headers, body: body)
        let now = now()
        let response = state.withLockedValue { state -> OutgoingResponse in
            let response = APNsProtocol.respond(to: request, state: &state, now: now)
            let bearer = headers["authorization"].flatMap { value -> String? in
                let pieces = value.split(separator: " ", maxSplits: 1)
                return pieces.count == 2 ? String(pieces[1]) : nil
            }
            state.records.append(RecordedPush(
                method: request.method, path: path, deviceToken: path.hasPrefix("/3/device/") ? String(path.dropFirst(10)) : "",
                headers: headers, payload: body, providerToken: bearer, status: response.status, reason: response.reason,
                httpVersion: "HTTP/\(head.version.major)"))
            return response
        }
        var responseHeaders = HTTPHeaders()
        responseHeaders.add(name: "apns-id", value: response.apnsID)
        let bytes = response.body
        if !bytes.isEmpty { responseHeaders.add(name: "content-type", value: "application/json; charset=utf-8") }
        responseHeaders.add(name: "content-length", value: String(bytes.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: response.status),
                                                            headers: responseHeaders))), promise: nil)
        if !bytes.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
