import Foundation
import HandoverCore
import NIOCore
import SessionTokens

/// Turns what goes wrong while a server starts into a ``ConfigurationError``: one line that names
/// the setting, what was wrong with it and what is accepted. `handover serve` prints that line and
/// exits; nothing else (no backtrace, no Foundation error domain) reaches the administrator.
package enum StartupFailure {
    /// The error as a ``ConfigurationError`` (unchanged when it already is one).
    package static func explain(_ error: any Error) -> any Error {
        switch error {
        case let error as ConfigurationError:
            return error.oneLine
        case SecretSealerError.cannotOpen:
            return sealedWithAnotherKey
        default:
            return ConfigurationError(setting: "start-up", problem: oneLine(String(describing: error)),
                                      accepted: "see `handover serve --help`").oneLine
        }
    }

    /// A secret in the database does not open with this instance's key: another instance (with
    /// its own data directory) made it, or the key changed.
    package static let sealedWithAnotherKey = ConfigurationError(
        setting: "HANDOVER_TOKEN_ENCRYPTION_KEY",
        problem: "the secrets in this database were sealed with another encryption key (another instance's, or a key that has changed)",
        accepted: "the same key on every instance that shares the database: set HANDOVER_TOKEN_ENCRYPTION_KEY on each to the first instance's key, "
            + "the contents of token-encryption.key in its data directory")

    /// A failure to open or migrate the database.
    package static func database(_ error: any Error, configuration: ServerConfiguration) -> any Error {
        if error is ConfigurationError { return error }
        if let url = configuration.databaseURL {
            return ConfigurationError(setting: "--database", problem: "PostgreSQL at \(redacted(url)) could not be used (\(oneLine(String(reflecting: error))))",
                                      accepted: "the URL of a PostgreSQL server that is running and that this user may connect to and create tables in")
        }
        return ConfigurationError(setting: "--data-dir",
                                  problem: "the SQLite database in \(configuration.dataDirectory.path) could not be opened or migrated (\(oneLine(String(describing: error))))",
                                  accepted: "a data directory this user can write, on a local disk")
    }

    /// A failure to bind the listening socket.
    package static func listening(_ error: any Error, host: String, port: Int) -> any Error {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE:
                return ConfigurationError(setting: "--port", problem: "\(host):\(port) is already in use by another program",
                                          accepted: "a free port, or 0 for any free port")
            case EADDRNOTAVAIL:
                return ConfigurationError(setting: "--host", problem: "this machine has no address \(host)",
                                          accepted: "one of this machine's addresses, such as 127.0.0.1, or 0.0.0.0 for all of them")
            case EACCES:
                return ConfigurationError(setting: "--port", problem: "listening on port \(port) needs privileges this user does not have",
                                          accepted: "a port from 1024 up (put a proxy on 443), or 0 for any free port")
            default: break
            }
        }
        if error is SocketAddressError {
            return ConfigurationError(setting: "--host", problem: "'\(host)' does not resolve to an address",
                                      accepted: "an address of this machine, such as 127.0.0.1 or 0.0.0.0, or a name that resolves to one")
        }
        return ConfigurationError(setting: "--host", problem: "cannot listen on \(host):\(port) (\(oneLine(String(describing: error))))",
                                  accepted: "an address of this machine and a free port")
    }

    /// A URL with its password replaced by `***`, for messages (``ConfigurationError/redactingPasswords(_:)``).
    package static func redacted(_ url: String) -> String {
        ConfigurationError.redactingPasswords(url)
    }

    /// Text on one line: newlines and tabs become spaces, runs of spaces one.
    package static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isNewline || $0 == "\t" }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}

extension ConfigurationError {
    /// The same error with every part on one line.
    package var oneLine: ConfigurationError {
        ConfigurationError(setting: StartupFailure.oneLine(setting), problem: StartupFailure.oneLine(problem),
                           accepted: StartupFailure.oneLine(accepted))
    }
}
