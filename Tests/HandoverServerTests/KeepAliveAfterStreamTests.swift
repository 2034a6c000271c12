import Foundation
import LinkCallbacks
import NIOCore
import NIOPosix
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoverServer

/// A request that follows an event stream on the same kept-alive connection is answered. (It
/// was not: when the next request's head arrived just as the stream ended, finishing the stream
/// reset the connection's state, the request's body was dropped, and the client got a 408 ten
/// seconds later; `OutOfBandOperationTests` met it now and then under load.)
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct KeepAliveAfterStreamTests {
    @Test func aRequestWhoseBodyFollowsLateAfterAStreamIsAnswered() async throws {
        try await TestServer.with(.sqlite) { test in
            try await test.registerTarget("Notes")
            let device = try await test.registerDevice()
            let created = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key)
            let runID = try #require(created.json["id"] as? String)
            let items = try #require(created.json["items"] as? [[String: Any]])
            let link = try UniversalLinkCallback(parsing: try #require(items.first?["link"] as? String))
            let callback = link.success.absoluteString
            // Finish the run through the callback page, so its event stream ends after one event.
            let path = String(callback.dropFirst(test.server.publicURL.absoluteString.count))
            #expect(try await test.request(.GET, path).status == 200)

            let body = #"{"url":"\#(callback)"}"#
            let stream = "GET /api/v1/logout-runs/\(runID)/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(test.adminKey)\r\n\r\n"
            let head = "POST /api/v1/logout-runs/\(runID)/callbacks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(test.adminKey)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            // The stream and the next head together (the head waits until the stream ends), the body later.
            let reply = try await RawExchange.run(port: test.server.port, parts: [(stream + head, 0), (body, 300)],
                                                  until: { $0.components(separatedBy: "HTTP/1.1 ").count > 2 }, limitSeconds: 5)
            let statuses = reply.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
            #expect(statuses == ["200", "409"], "\(reply)")
        }
    }
}

/// A raw TCP exchange: sends each part after its delay (milliseconds), reads until `until` holds
/// for what arrived, the server closes, or the time limit passes.
enum RawExchange {
    static func run(port: Int, parts: [(String, Int)], until: @escaping @Sendable (String) -> Bool,
                    limitSeconds: Double) async throws -> SlowConnection.Result {
        try await OwnThread.run {
            let fd = try SlowConnection.connect(port: port)
            defer { close(fd) }
            var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = Date()
            var pending = parts
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date().timeIntervalSince(started) < limitSeconds {
                if let next = pending.first, Date().timeIntervalSince(started) * 1000 >= Double(next.1) {
                    let bytes = Array(next.0.utf8)
                    _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    pending.removeFirst()
                }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    return SlowConnection.Result(closed: true, seconds: Date().timeIntervalSince(started), text: String(decoding: received, as: UTF8.self))
                }
                if n > 0 { received.append(contentsOf: buffer[0..<n]) }
                if pending.isEmpty, until(String(decoding: received, as: UTF8.self)) { break }
            }
            return SlowConnection.Result(closed: false, seconds: Date().timeIntervalSince(started), text: String(decoding: received, as: UTF8.self))
        }
    }
}
