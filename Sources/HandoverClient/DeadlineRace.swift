/// Runs an operation against a deadline, and returns as soon as either ends: a handler that
/// ignores cancellation cannot hold the answer past the deadline.
enum DeadlineRace {
    enum Result<Value: Sendable>: Sendable {
        case finished(Value)
        case failed(any Error)
        case timedOut
    }

    /// - Parameter deadline: returns when the deadline has come (an absolute instant, see ``Stopwatch``).
    static func run<Value: Sendable>(deadline: @escaping @Sendable () async throws -> Void,
                                     _ operation: @escaping @Sendable () async throws -> Value) async -> Result<Value> {
        let slot = Protected<(continuation: CheckedContinuation<Result<Value>, Never>?, result: Result<Value>?)>((nil, nil))
        @Sendable func finish(_ result: Result<Value>) {
            let continuation: CheckedContinuation<Result<Value>, Never>? = slot.withLock { slot in
                guard slot.result == nil else { return nil }
                slot.result = result
                let continuation = slot.continuation
                slot.continuation = nil
                return continuation
            }
            continuation?.resume(returning: result)
        }
        let work = Task {
            do { finish(.finished(try await operation())) } catch { finish(.failed(error)) }
        }
        let timer = Task {
            do {
                try await deadline()
                finish(.timedOut)
            } catch {
                finish(.timedOut)  // cancelled: the caller is gone or the work finished first
            }
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value>, Never>) in
                let ready: Result<Value>? = slot.withLock { slot in
                    if let result = slot.result { return result }
                    slot.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish(.timedOut)
        }
        work.cancel()
        timer.cancel()
        return result
    }
}
