import Logging
import ServiceLifecycle

/// Background work that repeats: one pass (the deadline scheduler, the webhook outbox, the expiry
/// of out-of-band operations, session upkeep), then a pause, until the service group shuts down.
/// A failed pass is logged and the next one runs on time; a graceful shutdown lets the pass that
/// is running finish and cuts the pause short.
struct RepeatingPass: Service {
    /// What the log calls it.
    let name: String
    let interval: Duration
    let logger: Logger
    let pass: @Sendable () async throws -> Void

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await pass()
            } catch {
                logger.warning("background pass failed", metadata: ["pass": "\(name)", "error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
