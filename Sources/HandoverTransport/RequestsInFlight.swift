import NIOConcurrencyHelpers
import NIOCore

/// The requests ``HTTPTransport`` has handed to the responder and whose work has not ended: a
/// route still running, or a streamed body (``StreamedBody``) still being written.
///
/// A connection closing does not end its request's work: Vapor's responder runs on after the
/// client has gone. Stopping the transport waits for this count to reach zero, so that nothing
/// still uses the databases when `HandoverServer.shutdown` closes them.
final class RequestsInFlight: Sendable {
    private struct State {
        var count = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())
    private let streams = DetachedWork()

    /// How many requests are in flight now.
    var count: Int { state.withLockedValue { $0.count } }

    /// A request was handed to the responder.
    func begin() {
        state.withLockedValue { $0.count += 1 }
    }

    /// A request's work ended: its response is written, or it failed.
    func end() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Bool, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Writes a begun request's streamed body in a task ``cancelStreams()`` can cancel; the
    /// request ends when `body` returns.
    func stream(_ body: @escaping @Sendable () async -> Void) {
        streams.start {
            await body()
            self.end()
        }
    }

    /// Cancels every streamed body still being written (an event stream lasts until its run ends).
    func cancelStreams() {
        streams.cancel()
    }

    /// Waits until no request is in flight, at most `timeout`; returns whether none is.
    func idle(within timeout: TimeAmount, on loop: any EventLoop) async -> Bool {
        await withCheckedContinuation { continuation in
            let id: Int? = state.withLockedValue { state in
                guard state.count > 0 else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiters[id] = continuation
                return id
            }
            guard let id else { return continuation.resume(returning: true) }
            loop.scheduleTask(in: timeout) {
                self.state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
    }
}
