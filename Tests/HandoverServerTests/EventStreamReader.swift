import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// Reads a `text/event-stream` answer event by event, for the tests that watch a stream end:
/// the whole stream must be over within `timeout` (real seconds), so a stream that never ends
/// fails its test instead of hanging it.
final class EventStreamReader: @unchecked Sendable {
    struct Event: Equatable {
        var name: String
        var data: String
    }

    /// The stream did not end, or send what was waited for, by its deadline.
    struct TimedOut: Error, CustomStringConvertible {
        var description: String { "the event stream sent nothing more before its deadline" }
    }

    let status: Int
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var buffer = ""
    /// When the whole stream must be over (AsyncHTTPClient's deadline does not bound a body read).
    private let deadline: ContinuousClock.Instant

    /// Opens `path` with `headers` (a bearer key, a session cookie).
    init(_ test: TestServer, _ path: String, headers: [(String, String)], timeout: Int64 = 20) async throws {
        var request = HTTPClientRequest(url: test.server.baseURL.absoluteString + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await test.client.execute(request, timeout: .seconds(timeout))
        status = Int(response.status.code)
        iterator = response.body.makeAsyncIterator()
        deadline = .now + .seconds(timeout)
    }

    /// The dashboard's live stream, opened with a browser's cookies.
    static func dashboard(_ browser: DashboardBrowser, path: String = "/dashboard/live") async throws -> EventStreamReader {
        try await EventStreamReader(browser.test, path, headers: [("Cookie", browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))])
    }

    /// An API stream, opened with a key.
    static func api(_ test: TestServer, _ path: String, key: String) async throws -> EventStreamReader {
        try await EventStreamReader(test, path, headers: [("Authorization", "Bearer \(key)")])
    }

    /// The next event (keep-alive comments skipped), or nil when the stream ended; throws
    /// ``TimedOut`` past the deadline (the read left behind ends when the test stops its server).
    func next() async throws -> Event? {
        let outcome = NIOLockedValueBox<CheckedContinuation<Event?, any Error>?>(nil)
        return try await withCheckedThrowingContinuation { continuation in
            outcome.withLockedValue { $0 = continuation }
            let finish: @Sendable (Result<Event?, any Error>) -> Void = { result in
                outcome.withLockedValue { waiting in
                    waiting?.resume(with: result)
                    waiting = nil
                }
            }
            let reader = Task {
                do { finish(.success(try await self.read())) } catch { finish(.failure(error)) }
            }
            let deadline = self.deadline
            Task {
                try? await Task.sleep(until: deadline)
                finish(.failure(TimedOut()))
                reader.cancel()
            }
        }
    }

    private func read() async throws -> Event? {
        while true {
            if let end = buffer.range(of: "\n\n") {
                let message = buffer[..<end.lowerBound]
                buffer.removeSubrange(..<end.upperBound)
                let lines = message.split(separator: "\n")
                guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7) else { continue }
                let data = lines.filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }.joined(separator: "\n")
                return Event(name: String(name), data: data)
            }
            guard let chunk = try await iterator.next() else { return nil }
            buffer += String(buffer: chunk)
        }
    }

    /// Reads until an event named `name` (returned) or the end of the stream (nil); the events
    /// passed over are counted in `skipped`.
    func next(named name: String) async throws -> (event: Event?, skipped: Int) {
        var skipped = 0
        while let event = try await next() {
            if event.name == name { return (event, skipped) }
            skipped += 1
        }
        return (nil, skipped)
    }

    /// Reads what is left: the events until the stream ends.
    func rest() async throws -> [Event] {
        var events: [Event] = []
        while let event = try await next() { events.append(event) }
        return events
    }
}
