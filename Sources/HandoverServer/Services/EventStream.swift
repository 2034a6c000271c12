import Foundation
import HandoverCore
import HandoverTransport
import NIOConcurrencyHelpers
import HandoverPages
import Vapor

/// A `text/event-stream` response that follows a change stream: one event now, then one after
/// every change whose data differs from the last sent, until an event marked final. A comment
/// line every 15 s keeps proxies from closing the stream.
///
/// The run API (`event: run` with the run's JSON) and the dashboard's live blocks (`update` and
/// `done` events with an HTML fragment) both stream through it.
///
/// A stream opened with a credential carries its ``StreamLease``: when the key or session is
/// revoked or expires (``OpenStreams``), the stream sends `event: revoked` with a sentence and
/// ends. A client that reconnects then meets the refusal any request would.
enum EventStream {
    /// One event to send.
    struct Event: Sendable {
        var name: String
        var data: String
        /// The stream ends after this event.
        var isFinal: Bool
    }

    static func response(changes: AsyncStream<Void>, lease: StreamLease?,
                         next: @escaping @Sendable () async throws -> Event) -> Response {
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        response.headers.replaceOrAdd(name: "X-Accel-Buffering", value: "no")
        let write: @Sendable (any AsyncBodyStreamWriter) async throws -> Void = { writer in
            enum Tick { case change, heartbeat, ended }
            let (ticks, continuation) = AsyncStream<Tick>.makeStream(bufferingPolicy: .bufferingNewest(3))
            // Read at every tick: a burst of changes may push the `ended` tick out of the buffer.
            let endedBy = NIOLockedValueBox<StreamEnd?>(nil)
            let forward = Task {
                for await _ in changes { continuation.yield(.change) }
                continuation.finish()
            }
            let revoked = Task {
                guard let lease else { return }
                for await end in lease.ended {
                    endedBy.withLockedValue { $0 = end }
                    continuation.yield(.ended)
                }
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
                revoked.cancel()
                lease?.close()
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
                if let end = endedBy.withLockedValue({ $0 }) {
                    try await writer.write(.buffer(ByteBuffer(string: format(revokedEvent(end)))))
                    return
                }
                switch tick {
                case .heartbeat: try await writer.write(.buffer(ByteBuffer(string: ": keep-alive\n\n")))
                case .change:
                    if try await send() { return }
                case .ended: break  // read above
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
    static func response(broadcast: AsyncStream<String>, lease: StreamLease?) -> Response {
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
            let revoked = Task {
                guard let lease else { return }
                for await end in lease.ended {
                    continuation.yield(format(revokedEvent(end)))
                    continuation.finish()
                }
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
                revoked.cancel()
                lease?.close()
                continuation.finish()
            }
            for await chunk in chunks { try await writer.write(.buffer(ByteBuffer(string: chunk))) }
        }
        response.body = .init(managedAsyncStream: write)
        response.storage[StreamedBody.Key.self] = StreamedBody(write: write)
        return response
    }

    /// The last event of a stream whose credential ended.
    static func revokedEvent(_ end: StreamEnd) -> Event {
        let sentence = switch end {
        case .revoked: "The key or session this stream was opened with was revoked. Sign in again."
        case .expired: "The key or session this stream was opened with has expired or ended. Sign in again."
        }
        return Event(name: "revoked", data: sentence, isFinal: true)
    }

    /// One SSE event; each line of the data gets its own `data:` field.
    static func format(_ event: Event) -> String {
        "event: \(event.name)\n" + event.data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined() + "\n"
    }
}
