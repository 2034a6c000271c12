import Foundation

/// What a launcher does with a callback universal link it receives: ``LogoutInitiator`` (local
/// mode) and ``ServerBackedLogout`` (server mode) both take them.
public protocol LauncherCallbackHandler: Sendable {
    /// Takes a callback URL; `true` when it answered an attempt in flight.
    func handleCallback(_ url: URL) async -> Bool
}

extension LogoutInitiator: LauncherCallbackHandler {}
