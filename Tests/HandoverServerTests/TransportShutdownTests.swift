import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing
import Vapor
@testable import HandoverServer
@testable import HandoverTransport

/// Stopping ``HTTPTransport`` waits for every request it handed to the responder, not only for
/// its connections to close. `HandoverServer.shutdown` closes the databases right after the
/// transport stops, and a route still running then traps in Fluent's `Request.db` (a full test
/// run crashed so: `APIHandler.listDeliveries` on a request whose client had gone, its server
/// already shut down).
@Suite(.timeLimit(.minutes(5))) struct TransportShutdownTests {
    /// What happened, in order.
    final class Events: Sendable {
        private let box = NIOLockedValueBox<[String]>([])
        func record(_ event: String) { box.withLockedValue { $0.append(event) } }
        var all: [String] { box.withLockedValue { $0 } }
    }

    /// Hands each message logged to `notice`.
    struct LogCapture: LogHandler {
        var notice: @Sendable (String) -> Void
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .notice
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
                 function: String, line: UInt) {
            notice(message.description)
        }
    }

    /// A Vapor application on ``HTTPTransport`` with `routes`, on a port of its own; what it logs
    /// goes to `log`.
    private static func start(shutdownTimeout: TimeAmount, log: @escaping @Sendable (String) -> Void = { _ in },
                              routes: (Application) -> Void) async throws -> (Application, HTTPTransport, Int) {
        let application = try await Application.make(.testing)
        application.logger = Logger(label: "transport-shutdown-test") { _ in LogCapture(notice: log) }
        let transport = HTTPTransport(application: application, serverName: nil, shutdownTimeout: shutdownTimeout)
        application.servers.use { _ in transport }
        routes(application)
        try await transport.start(address: .hostname("127.0.0.1", port: 0))
        return (application, transport, try #require(transport.localAddress?.port))
    }

    @Test func shutdownWaitsForARouteWhoseClientHasGone() async throws {
        let events = Events()
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        // What happens first once shutdown begins: it says it waits for the route, or it stops.
        let (firsts, first) = AsyncStream<String>.makeStream()
        let log: @Sendable (String) -> Void = { message in if message.hasPrefix("Waiting for the requests still running (1)") { first.yield("waiting") } }
        let (application, transport, port) = try await Self.start(shutdownTimeout: .seconds(10), log: log) { application in
            application.get("hold") { _ async -> String in
                enteredContinuation.yield()
                for await _ in release { break }
                events.record("route finished")
                return "done"
            }
        }
        // The client sends, waits one second for an answer that does not come, and closes.
        let client = Task { try? await RawConnection.exchange(port: port, sending: "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n", timeoutSeconds: 1) }
        for await _ in entered { break }
        _ = await client.value

        let stopping = Task {
            await transport.shutdown()
            events.record("transport stopped")
            first.yield("stopped")
        }
        // Before the fix the transport stopped at once: its only connection had closed.
        var firstEvent: String?
        for await event in firsts { firstEvent = event; break }
        let stoppedEarly = firstEvent == "stopped"
        releaseContinuation.yield()
        await stopping.value
        #expect(!stoppedEarly)
        #expect(events.all == ["route finished", "transport stopped"])
        try await application.asyncShutdown()
    }

    @Test func shutdownEndsAnOpenEventStreamAndWaitsForItsProducer() async throws {
        let events = Events()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (neverSent, neverSentContinuation) = AsyncStream<Void>.makeStream()  // never yields: an event that never comes
        let (application, transport, port) = try await Self.start(shutdownTimeout: .milliseconds(200)) { application in
            application.get("stream") { _ -> Response in
                let response = Response(status: .ok)
                response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
                response.storage[StreamedBody.Key.self] = StreamedBody { writer in
                    try await writer.write(.buffer(ByteBuffer(string: ": open\n\n")))
                    startedContinuation.yield()
                    for await _ in neverSent {}  // ends when the task is cancelled
                    events.record("stream ended")
                    throw CancellationError()
                }
                return response
            }
        }
        let client = Task { try? await RawConnection.exchange(port: port, sending: "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n", timeoutSeconds: 30) }
        for await _ in started { break }
        await transport.shutdown()
        events.record("transport stopped")
        #expect(events.all == ["stream ended", "transport stopped"])
        neverSentContinuation.finish()
        client.cancel()
        try await application.asyncShutdown()
        _ = await client.value
    }
}
