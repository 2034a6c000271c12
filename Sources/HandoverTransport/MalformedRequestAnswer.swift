import Foundation
import HandoverProtocol
import NIOCore
import NIOHTTP1

/// Answers a request NIO's parser cannot read with the API's JSON error, in place of NIO's
/// `HTTPServerProtocolErrorHandler`, whose 400 has no body (issue 66, small seams).
///
/// A field value must not hold CR, LF or NUL (RFC 9110 §5.5), and a bare CR is invalid
/// (RFC 9112 §2.2): the parser stops there, and the request is refused. The commonest case is an
/// API key copied from the keys CSV with its line end (RFC 4180's CRLF), so the answer names the
/// header field at fault, found in the bytes ``ConnectionGuard`` last passed on, and what was
/// wrong; it never repeats the value, which may be a secret. Like NIO's handler it answers only
/// when no response has begun, and the connection then closes.
final class MalformedRequestAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let connection: ConnectionGuard
    private var responding = false

    init(connection: ConnectionGuard) { self.connection = connection }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !responding {
            let body = Self.refusal(for: parse, in: connection.lastBytes)
            let json = (try? JSONEncoder().encode(body)) ?? Data(#"{"error":"bad_request","reason":"The request is not HTTP/1.1."}"#.utf8)
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Type", "application/json; charset=utf-8"),
                                       ("Content-Length", String(json.count))])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: json)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        // NIO's decoder closes the connection after this returns.
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code < 200: break  // informational: the response is still to come
        case .head: responding = true
        case .body: break
        case .end: responding = false
        }
        context.write(data, promise: promise)
    }

    /// What to answer: the header field whose value holds a CR, LF or NUL, when `bytes` (the
    /// last bytes read) show one; else the parser's own finding.
    static func refusal(for error: HTTPParserError, in bytes: ByteBuffer?) -> APIErrorBody {
        if let bytes, let (field, character) = fieldHoldingAForbiddenCharacter(bytes.readableBytesView) {
            return APIErrorBody(
                error: "invalid_header",
                reason: "The \(field) header's value holds a \(character): a field value may not contain CR, LF or NUL "
                    + "(RFC 9110 §5.5; RFC 9112 §2.2). A value copied from a CSV file (such as the keys file, whose lines end "
                    + "in CRLF) may have kept its line end: remove it. The connection is closed.",
                field: field)
        }
        return APIErrorBody(error: "bad_request", reason: "The request could not be read as HTTP/1.1 (\(error)). The connection is closed.")
    }

    /// The first header line whose value holds a CR not ending the line, an LF not after a CR, or
    /// a NUL: the field's name (as sent, if it is a token) and the character's name.
    static func fieldHoldingAForbiddenCharacter(_ bytes: ByteBufferView) -> (field: String, character: String)? {
        let octets = Array(bytes.prefix(16_384))
        var lineStart = 0
        var index = 0
        var firstLine = true
        while index < octets.count {
            let byte = octets[index]
            let endsLine = byte == UInt8(ascii: "\r") && index + 1 < octets.count && octets[index + 1] == UInt8(ascii: "\n")
            if endsLine {
                if index == lineStart { return nil }  // the empty line: the header section ended
                firstLine = false
                index += 2
                lineStart = index
                continue
            }
            let character: String? = switch byte {
            case UInt8(ascii: "\r"): "carriage return (CR) that does not end its line"
            case UInt8(ascii: "\n"): "line feed (LF) without its carriage return"
            case 0: "NUL character"
            default: nil
            }
            if let character, !firstLine {
                let line = octets[lineStart..<index]
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
                let name = String(decoding: octets[lineStart..<colon], as: UTF8.self)
                guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else { return nil }
                return (name, character)
            }
            index += 1
        }
        return nil
    }

    /// RFC 9110 §5.6.2's tchar: what a field name is made of.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
