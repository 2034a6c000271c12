import Foundation
import NIOPosix
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoverServer
@testable import HandoverTransport

/// The server's own HTTP/1.1 transport, spoken to byte for byte over a plain TCP socket:
/// pipelining, HEAD, the body limit, what does not parse, and the association-file fast path
/// answering exactly what the router answers.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct HTTPTransportTests {
    @Test func pipelinedRequestsAreAnsweredInOrderWhetherFastPathOrRouted() async throws {
        let test = try await TestServer.start(.sqlite, publicURL: "https://handover.example.com")
        let created = try await test.request(.POST, "/api/v1/apps", json: [
            "name": "Launcher", "role": "launcher", "appIDs": ["ABCDE12345.com.example.launcher"],
        ], key: test.adminKey)
        #expect(created.status == 201, "\(created.text)")
        let aasa = "/.well-known/apple-app-site-association"
        let routed = try await test.request(.GET, aasa, headers: [("If-None-Match", "\"other\"")])  // the router's answer
        #expect(routed.status == 200)

        let port = test.server.port
        let raw = try await RawConnection.exchange(port: port, sending: [
            "GET \(aasa) HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /api/v1/apps HTTP/1.1\r\nHost: x\r\n\r\n",
            "HEAD \(aasa) HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /no/such/page HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET \(aasa) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ].joined())
        let responses = try RawConnection.parse(raw, headRequests: [2])
        #expect(responses.map(\.status) == [200, 401, 200, 404, 200])
        #expect(responses[0].body == routed.body)
        #expect(responses[0].headers["etag"] == routed.headers.first(name: "ETag"))
        #expect(responses[0].headers["content-type"] == routed.headers.first(name: "Content-Type"))
        #expect(responses[0].headers["cache-control"] == routed.headers.first(name: "Cache-Control"))
        #expect(responses[0].headers["connection"] == "keep-alive")
        #expect(responses[0].headers["date"] != nil && responses[0].headers["server"] == "handover")
        #expect(responses[2].headers["content-length"] == String(routed.body.count) && responses[2].body.isEmpty)
        #expect(responses[4].headers["connection"] == "close")
        try await test.stop()
    }

    @Test func aBodyOverTheLimitIsAnswered413AndTheConnectionCloses() async throws {
        let test = try await TestServer.start(.sqlite)
        let body = String(repeating: "a", count: HTTPTransport.maximumBodySize + 1)
        let raw = try await RawConnection.exchange(port: test.server.port, sending:
            "POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let responses = try RawConnection.parse(raw, headRequests: [])
        #expect(responses.map(\.status) == [413])  // and nothing after: the connection closed
        #expect(String(decoding: responses[0].body, as: UTF8.self).contains("payload_too_large"))
        #expect(responses[0].headers["connection"] == "close")
        try await test.stop()
    }

    /// Before (issue 66, small seams): an API key copied from the keys CSV, whose lines end in
    /// CRLF (RFC 4180), kept its CR and got a bare 400 with no body. A field value must not hold
    /// CR, LF or NUL (RFC 9110 §5.5) and a bare CR is invalid (RFC 9112 §2.2), so it is still
    /// refused, now with the API's JSON error naming the header field and what was wrong; the
    /// value, a secret, is never echoed.
    @Test func aKeyWithTheCSVsCarriageReturnGetsTheAPIsErrorNamingTheHeader() async throws {
        let test = try await TestServer.start(.sqlite)
        let raw = try await RawConnection.exchange(port: test.server.port, sending:
            "GET /api/v1/apps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(test.adminKey)\r\r\n\r\n")
        let responses = try RawConnection.parse(raw, headRequests: [])
        #expect(responses.map(\.status) == [400])
        #expect(responses.first?.headers["content-type"]?.hasPrefix("application/json") == true, "\(responses.first?.headers ?? [:])")
        let body = try #require(try JSONSerialization.jsonObject(with: responses.first?.body ?? Data()) as? [String: Any])
        let reason = body["reason"] as? String ?? ""
        #expect(body["error"] as? String == "invalid_header" && body["field"] as? String == "Authorization"
                && reason.contains("carriage return") && reason.contains("RFC 9110"), "\(body)")
        #expect(!String(decoding: raw, as: UTF8.self).contains(test.adminKey), "the value is never echoed")
        try await test.stop()
    }

    @Test func whatDoesNotParseIsA400() async throws {
        let test = try await TestServer.start(.sqlite)
        let raw = try await RawConnection.exchange(port: test.server.port, sending: "NOT HTTP AT ALL\r\n\r\n")
        #expect(String(decoding: raw, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        #expect(String(decoding: raw, as: UTF8.self).contains(#""error":"bad_request""#), "the API's JSON error, not a bare 400")
        try await test.stop()
    }
}

/// A plain TCP client on loopback: sends bytes, reads until the server closes. The blocking
/// socket calls run on NIO's thread pool, never on a thread of Swift's cooperative pool, which
/// the server in this same process needs to answer.
enum RawConnection {
    struct Failure: Error { var what: String }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    static func exchange(port: Int, sending text: String, timeoutSeconds: Int = 10) async throws -> Data {
        try await OwnThread.run { try blockingExchange(port: port, sending: text, timeoutSeconds: timeoutSeconds) }
    }

    private static func blockingExchange(port: Int, sending text: String, timeoutSeconds: Int) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(what: "socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(what: "connect to \(port)") }
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may close before taking everything
            sent += n
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 { throw Failure(what: "no close within \(timeoutSeconds) s (received \(received.count) bytes)") }
            if n == 0 { return received }
            received.append(contentsOf: buffer[0..<n])
        }
    }

    /// Splits a stream of responses by their Content-Length; `headRequests` are the indexes of
    /// responses to HEAD requests, which carry a Content-Length but no body.
    static func parse(_ data: Data, headRequests: Set<Int>) throws -> [Response] {
        var responses: [Response] = []
        var rest = data[...]
        let separator = Data("\r\n\r\n".utf8)
        while !rest.isEmpty {
            guard let end = rest.range(of: separator) else { throw Failure(what: "a head without its end") }
            let lines = String(decoding: rest[rest.startIndex..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines[0].split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(what: "status line \(lines[0])") }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = headRequests.contains(responses.count) ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            let bodyEnd = end.upperBound + length
            guard bodyEnd <= rest.endIndex else { throw Failure(what: "a body cut short") }
            responses.append(Response(status: status, headers: headers, body: Data(rest[end.upperBound..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return responses
    }
}
