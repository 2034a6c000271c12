import Foundation
import Logging

/// Log handlers for the commands that run a server: standard error, at `LOG_LEVEL` or a default.
///
/// The level is read once, here: Vapor makes several loggers per request, and reading the
/// process environment in each (which parses every variable) cost a third of the server's time
/// on a small GET. For the same reason metadata is formatted only when a message is written:
/// Vapor sets a request id on every request's logger, and `StreamLogHandler` formats its
/// metadata each time it is set.
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
            StandardErrorLogHandler(label: label, logLevel: level)
        }
    }
}

/// Writes like `StreamLogHandler.standardError`, and formats metadata only when it writes.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
        self.metadataProvider = LoggingSystem.metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
        handler.logLevel = logLevel
        handler.metadata = metadata
        handler.log(event: event)
    }
}
