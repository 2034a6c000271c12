import Logging
import ServiceLifecycle

/// Background work that repeats: one pass (the deadline scheduler, the webhook outbox, the expiry
/// of out-of-band operations, session upkeep), then a pause, until the service group shuts down.
/// A failed pass is logged and the next one runs on time; a graceful shutdown lets the pass that
/// is running finish and cuts the pause short.
struct RepeatingPass: Service {
    /// What the log calls it.
    let name: String
    /// The pause after each pass, asked for after it (a pass may set its own pace, as SQLite's
    /// checkpoint does from how fast its log grows).
    let pause: @Sendable () -> Duration
    let logger: Logger
    let pass: @Sendable () async throws -> Void

    /// A pass every `interval`.
    init(name: String, interval: Duration, logger: Logger, pass: @escaping @Sendable () async throws -> Void) {
        self.init(name: name, logger: logger, pause: { interval }, pass: pass)
    }

    /// A pass, then the pause `pause` answers, and again.
    init(name: String, logger: Logger, pause: @escaping @Sendable () -> Duration, pass: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.pause = pause
        self.logger = logger
        self.pass = pass
    }

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await pass()
            } catch {
                logger.warning("background pass failed", metadata: ["pass": "\(name)", "error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause()) }
        }
    }
}
