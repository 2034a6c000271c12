import Logging
import ServiceLifecycle

/// Waits for SIGINT (Ctrl-C) or SIGTERM with swift-service-lifecycle: a `ServiceGroup` whose one
/// service returns when the group begins its graceful shutdown.
enum ShutdownSignal {
    /// Returns once SIGINT or SIGTERM arrives.
    static func wait() async throws {
        var logger = Logger(label: "handover.lifecycle")
        logger.logLevel = .warning
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: UntilGracefulShutdown())],
            gracefulShutdownSignals: [.sigint, .sigterm],
            logger: logger))
        try await group.run()
    }

    /// A service that does nothing until the group is asked to shut down.
    private struct UntilGracefulShutdown: Service {
        func run() async throws {
            try? await gracefulShutdown()
        }
    }
}
