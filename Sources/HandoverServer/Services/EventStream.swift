import Foundation
import HandoverCore
import Vapor

/// A `text/event-stream` response that follows a change stream: one event now, then one after
/// every change whose data differs from the last sent, until an event marked final. A comment
/// line every 15 s keeps proxies from closing the stream.
///
/// The run API (`event: run` with the run's JSON) and the dashboard's live blocks (`update` and
/// `done` events with an HTML fragment) both stream through it.
enum EventStream {
    /// One event to send.
    struct Event: Sendable {
        var name: String
        var data: String
        /// The stream ends after this event.
        var isFinal: Bool
    }

    static func response(changes: AsyncStream<Void>,
                         next: @escaping @Sendable () async throws -> Event) -> Response {
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        response.headers.replaceOrAdd(name: "X-Accel-Buffering", value: "no")
        let write: @Sendable (any AsyncBodyStreamWriter) async throws -> Void = { writer in
            enum Tick { case change, heartbeat }
            let (ticks, continuation) = AsyncStream<Tick>.makeStream(bufferingPolicy: .bufferingNewest(2))
            let forward = Task {
                for await _ in changes { continuation.yield(.change) }
                continuation.finish()
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    continuation.yield(.heartbeat)
                }
            }
            defer {
                forward.cancel()
                heartbeat.cancel()
                continuation.finish()
            }
            var last: String?
            /// Sends the next event when its data changed; returns whether the stream is over.
            func send() async throws -> Bool {
                let event = try await next()
                if event.data != last {
                    last = event.data
                    try await writer.write(.buffer(ByteBuffer(string: format(event))))
                }
                return event.isFinal
            }
            if try await send() { return }
            for await tick in ticks {
                switch tick {
                case .heartbeat: try await writer.write(.buffer(ByteBuffer(string: ": keep-alive\n\n")))
                case .change:
                    if try await send() { return }
                }
            }
        }
        response.body = .init(managedAsyncStream: write)
        // The same producer for ``HTTPTransport``, which cannot run Vapor's private stream body.
        response.storage[StreamedBody.Key.self] = StreamedBody(write: write)
        return response
    }

    /// A `text/event-stream` response that writes each chunk of `broadcast` (SSE text shared by
    /// many streams, such as ``LiveOverview``'s), with the same keep-alive comment every 15 s.
    static func response(broadcast: AsyncStream<String>) -> Response {
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        response.headers.replaceOrAdd(name: "X-Accel-Buffering", value: "no")
        let write: @Sendable (any AsyncBodyStreamWriter) async throws -> Void = { writer in
            let (chunks, continuation) = AsyncStream<String>.makeStream()
            let forward = Task {
                for await chunk in broadcast { continuation.yield(chunk) }
                continuation.finish()
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    continuation.yield(": keep-alive\n\n")
                }
            }
            defer {
                forward.cancel()
                heartbeat.cancel()
                continuation.finish()
            }
            for await chunk in chunks { try await writer.write(.buffer(ByteBuffer(string: chunk))) }
        }
        response.body = .init(managedAsyncStream: write)
        response.storage[StreamedBody.Key.self] = StreamedBody(write: write)
        return response
    }

    /// One SSE event; each line of the data gets its own `data:` field.
    static func format(_ event: Event) -> String {
        "event: \(event.name)\n" + event.data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined() + "\n"
    }
}
