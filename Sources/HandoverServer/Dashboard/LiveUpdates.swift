import Foundation
import Vapor

/// A `text/event-stream` of HTML fragments for a live block of a page (see
/// ``DashboardLayout/live(id:source:content:)``): an `update` event with the fragment now and
/// after every change, and a `done` event with the last one when `render` says it is final.
enum LiveUpdates {
    static func stream(changes: AsyncStream<Void>,
                       render: @escaping @Sendable () async throws -> (html: HTML, finished: Bool)) -> Response {
        let response = Response(status: .ok)
        response.headers.replaceOrAdd(name: .contentType, value: "text/event-stream")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        response.headers.replaceOrAdd(name: "X-Accel-Buffering", value: "no")
        response.body = .init(managedAsyncStream: { writer in
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
            var last = ""
            func send() async throws -> Bool {
                let (html, finished) = try await render()
                if html.rendered != last || finished {
                    last = html.rendered
                    try await writer.write(.buffer(ByteBuffer(string: event(finished ? "done" : "update", html.rendered))))
                }
                return finished
            }
            if try await send() { return }
            for await tick in ticks {
                switch tick {
                case .heartbeat: try await writer.write(.buffer(ByteBuffer(string: ": keep-alive\n\n")))
                case .change: if try await send() { return }
                }
            }
        })
        return response
    }

    /// One SSE event; each line of the data gets its own `data:` field.
    static func event(_ name: String, _ data: String) -> String {
        "event: \(name)\n" + data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined() + "\n"
    }
}
