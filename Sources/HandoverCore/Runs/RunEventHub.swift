import Foundation
import NIOConcurrencyHelpers

/// In-process fan-out of "run R changed" to every open event stream on this instance.
package final class RunEventHub: Sendable {
    private let subscribers = NIOLockedValueBox<[UUID: [UUID: AsyncStream<Void>.Continuation]]>([:])

    package init() {}

    /// A stream that yields once per change of `run`, until the caller stops reading.
    package func subscribe(to run: UUID) -> AsyncStream<Void> {
        let token = UUID()
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        subscribers.withLockedValue { $0[run, default: [:]][token] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLockedValue { all in
                all[run]?[token] = nil
                if all[run]?.isEmpty == true { all[run] = nil }
            }
        }
        return stream
    }

    /// The key whose subscribers hear every change (the dashboard's overview).
    package static let everything = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// A stream that yields once per change of any run or test.
    package func subscribeToEverything() -> AsyncStream<Void> { subscribe(to: Self.everything) }

    package func publish(_ run: UUID) {
        let targets = subscribers.withLockedValue { Array(($0[run] ?? [:]).values) + Array(($0[Self.everything] ?? [:]).values) }
        for continuation in targets { continuation.yield() }
    }

    package var subscriberCount: Int { subscribers.withLockedValue { $0.values.reduce(0) { $0 + $1.count } } }
}
