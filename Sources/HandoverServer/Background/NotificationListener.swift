import Logging
import PostgresNIO
import ServiceLifecycle

/// Keeps one PostgreSQL connection listening on `channel` (run changes, session revocations from
/// every instance) and hands each payload to `handle`; reconnects a second after a lost
/// connection, until the service group shuts down.
struct NotificationListener: Service {
    let configuration: PostgresConnection.Configuration
    let channel: String
    let logger: Logger
    let handle: @Sendable (String) -> Void

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                    do {
                        for try await notification in try await connection.listen(channel) {
                            handle(notification.payload)
                        }
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                    try? await connection.close()
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("LISTEN connection lost; reconnecting", metadata: ["error": "\(error)", "channel": "\(channel)"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            }
        }
    }
}
