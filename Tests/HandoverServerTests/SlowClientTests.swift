import Foundation
import HandoverConfiguration
import NIOCore
import NIOPosix
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoverServer

/// Slow and silent clients are dropped within the configured limits, a declared body over the
/// limit is answered at once, and the server keeps serving everyone else meanwhile.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct SlowClientTests {
    static func limited(_ configuration: inout ServerConfiguration) {
        configuration.connectionLimits.idleTimeout = .seconds(1)
        configuration.connectionLimits.headerTimeout = .seconds(1)
        configuration.connectionLimits.bodyTimeout = .seconds(1)
    }

    @Test func idleHeaderTrickleAndBodyTrickleConnectionsAreClosedWhileOthersAreServed() async throws {
        try await TestServer.with(.sqlite, configure: Self.limited) { test in
            let port = test.server.port
            async let idle = SlowConnection.run(port: port, first: nil, trickle: nil)
            async let headers = SlowConnection.run(port: port, first: "GET /healthz HTTP/1.1\r\nHost: x\r\n", trickle: "X-Slow: 1\r\n")
            async let body = SlowConnection.run(port: port, first: "POST /api/v1/devices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", trickle: " ")
            // Others are served while the three dawdle.
            for _ in 0..<5 {
                #expect(try await test.request(.GET, "/healthz").status == 200)
            }
            let (a, b, c) = try await (idle, headers, body)
            #expect(a.closed && a.seconds < 4, "idle: \(a)")
            #expect(b.closed && b.seconds < 4, "header trickle: \(b)")
            #expect(b.text.hasPrefix("HTTP/1.1 408"), "header trickle: \(b.text)")
            #expect(c.closed && c.seconds < 4, "body trickle: \(c)")
            #expect(c.text.hasPrefix("HTTP/1.1 408"), "body trickle: \(c.text)")
            #expect(try await test.request(.GET, "/healthz").status == 200)
        }
    }

    @Test func aGigabyteContentLengthIsAnswered413AtOnce() async throws {
        try await TestServer.with(.sqlite) { test in
            let result = try await SlowConnection.run(port: test.server.port,
                                                      first: "POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n{",
                                                      trickle: nil, limitSeconds: 5)
            #expect(result.closed, "\(result)")
            #expect(result.text.hasPrefix("HTTP/1.1 413"), "\(result.text)")
        }
    }

    @Test func connectionsBeyondTheCapAreClosedAtOnce() async throws {
        try await TestServer.with(.sqlite, configure: { $0.connectionLimits.maximumConnections = 16 }) { test in
            let port = test.server.port
            var held: [Int32] = []
            defer { held.forEach { _ = close($0) } }
            for _ in 0..<16 { held.append(try SlowConnection.connect(port: port)) }
            // Let the server accept the sixteen before the seventeenth knocks.
            try await Task.sleep(for: .milliseconds(300))
            let extra = try await SlowConnection.run(port: port, first: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", trickle: nil, limitSeconds: 5)
            #expect(extra.closed && extra.text.isEmpty, "\(extra)")
            held.forEach { _ = close($0) }
            held = []
            var served = false
            for _ in 0..<50 where !served {
                served = (try? await test.request(.GET, "/healthz").status) == 200
                if !served { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served, "a connection is admitted again once others close")
        }
    }
}

/// A raw TCP client that sends a start, then one trickle chunk every 200 ms, until the server
/// closes the connection or the time limit passes.
enum SlowConnection {
    struct Result: CustomStringConvertible {
        var closed: Bool
        var seconds: Double
        var text: String
        var description: String { "closed: \(closed) after \(String(format: "%.1f", seconds)) s, received: \(text.prefix(120))" }
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawConnection.Failure(what: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw RawConnection.Failure(what: "connect to \(port)") }
        return fd
    }

    static func run(port: Int, first: String?, trickle: String?, limitSeconds: Double = 10) async throws -> Result {
        try await OwnThread.run {
            let fd = try connect(port: port)
            defer { close(fd) }
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = Date()
            func send(_ text: String) -> Bool {
                let bytes = Array(text.utf8)
                return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } > 0
            }
            if let first { _ = send(first) }
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date().timeIntervalSince(started) < limitSeconds {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    return Result(closed: true, seconds: Date().timeIntervalSince(started), text: String(decoding: received, as: UTF8.self))
                }
                if n > 0 { received.append(contentsOf: buffer[0..<n]) }
                if let trickle { _ = send(trickle) }
            }
            return Result(closed: false, seconds: Date().timeIntervalSince(started), text: String(decoding: received, as: UTF8.self))
        }
    }
}
