import Foundation
import NIOConcurrencyHelpers

/// Sessions revoked recently, kept in memory so that their still-unexpired access tokens are
/// refused without a database read. An entry is dropped once every token of that session has
/// expired anyway.
public final class RevocationList: Sendable {
    private let entries = NIOLockedValueBox([String: Date]())

    public init() {}

    /// Marks `sessionID` revoked; its tokens expire at the latest at `until`.
    public func revoke(_ sessionID: String, until: Date) {
        entries.withLockedValue { entries in
            if let existing = entries[sessionID], existing >= until { return }
            entries[sessionID] = until
        }
    }

    /// Whether `sessionID` is revoked.
    public func isRevoked(_ sessionID: String) -> Bool {
        entries.withLockedValue { $0[sessionID] != nil }
    }

    /// Forgets entries whose tokens have all expired by `now`.
    public func prune(now: Date) {
        entries.withLockedValue { entries in entries = entries.filter { $0.value > now } }
    }

    /// How many sessions are held.
    public var count: Int { entries.withLockedValue { $0.count } }
}
