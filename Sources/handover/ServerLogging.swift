import Foundation
import Logging

/// Log handlers for the commands that run a server: standard error, at `LOG_LEVEL` or a default.
///
/// The level is read once, here: Vapor makes several loggers per request, and reading the
/// process environment in each (which parses every variable) cost a third of the server's time
/// on a small GET.
enum ServerLogging {
    /// Installs the handlers; call once, before the server starts.
    static func bootstrap(defaultLevel: Logger.Level) {
        LoggingSystem.bootstrap(handlerFactory(defaultLevel: defaultLevel))
    }

    /// Makes a handler per logger, all at the level the environment gave when this was called.
    static func handlerFactory(defaultLevel: Logger.Level,
                               environment: () -> [String: String] = { ProcessInfo.processInfo.environment })
        -> @Sendable (String) -> LogHandler {
        let level = environment()["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
        return { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
