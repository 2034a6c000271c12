// A bare SwiftNIO HTTP/1.1 server that answers GET and HEAD of one path with one file's bytes, and
// 404 for anything else: the floor of what a Swift server costs per request on this machine.
//
//   nio-file-server PORT URL-PATH FILE
//
// scripts/bench-server.sh runs it beside handover and nginx on the same bytes, as a reading: the
// gap between this and nginx is NIO's; the gap between this and handover is what handover adds.
// (Before handover had its own transport, Vapor's server put handover at 0.38 of nginx, and this
// at 0.86, which is how that cost was found.) It sends the headers handover sends (ETag,
// Cache-Control, Content-Type, Content-Length, Connection, Date) and reads the file once.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: nio-file-server PORT URL-PATH FILE\n".utf8))
    exit(2)
}
let path = arguments[2]
let bytes = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))

/// What every 200 shares, built once.
struct ServedFile: Sendable {
    let body: ByteBuffer
    let headers: HTTPHeaders

    init(_ bytes: Data) {
        body = ByteBuffer(bytes: bytes)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: "\"\(Self.fingerprint(bytes))\"")
        headers.add(name: "Cache-Control", value: "public, max-age=300")
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(bytes.count))
        self.headers = headers
    }

    /// 32 hex digits, as long as handover's ETag (two FNV-1a passes; a benchmark's tag, not a digest).
    static func fingerprint(_ bytes: Data) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325, second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second &* 0x100_0000_01b3) ^ UInt64(byte)
        }
        return String(format: "%016llx%016llx", first, second)
    }
}

/// The Date header, formatted once a second per connection (Vapor and nginx also cache it).
final class DateHeader {
    private var second = -1
    private var value = ""

    func current() -> String {
        var now = time(nil)
        if now != second {
            second = now
            var parts = tm()
            gmtime_r(&now, &parts)
            var text = [CChar](repeating: 0, count: 64)
            let count = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            value = String(decoding: text[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return value
    }
}

final class FileHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let file: ServedFile
    let path: String
    let date = DateHeader()
    private var pending: HTTPRequestHead?

    init(file: ServedFile, path: String) {
        self.file = file
        self.path = path
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pending = head
        case .body:
            break
        case .end:
            guard let head = pending else { return }
            pending = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let found = (head.method == .GET || head.method == .HEAD) && head.uri == path
        var headers = found ? file.headers : ["Content-Length": "0"]
        headers.add(name: "Connection", value: head.isKeepAlive ? "keep-alive" : "close")
        headers.add(name: "Date", value: date.current())
        let status: HTTPResponseStatus = found ? .ok : .notFound
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if found && head.method == .GET {
            context.write(wrapOutboundOut(.body(.byteBuffer(file.body))), promise: nil)
        }
        let keepAlive = head.isKeepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [context] _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }
}

let file = ServedFile(bytes)
let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.backlog, value: 256)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(FileHandler(file: file, path: path))
        }
    }
let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
print("nio-file-server: \(path) (\(bytes.count) bytes) on 127.0.0.1:\(port), \(System.coreCount) event loops")
try channel.closeFuture.wait()
