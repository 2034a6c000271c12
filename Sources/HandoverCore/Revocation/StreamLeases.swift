import Foundation

/// The open streams of one instance and the credentials each was opened with, as a value: each
/// change returns the streams that must end (decide), and ``OpenStreams`` ends them (apply).
///
/// A stream lives while every credential it depends on does. It ends at once when one of them is
/// revoked (``revoke(_:)``), and is checked again at its `recheckAt` (when its credential expires,
/// its session would idle out, or ``OpenStreams/recheckInterval`` at the latest, in case a
/// revocation was missed): ``due(now:)`` names those, and ``checked(_:liveUntil:now:)`` takes the
/// answer.
package struct StreamLeases: Sendable, Equatable {
    package struct Lease: Sendable, Equatable {
        package var credentials: Set<RevokedCredential>
        package var recheckAt: Date
        /// A check is under way: ``due(now:)`` does not name it again until it is answered.
        package var checking = false
    }

    package private(set) var leases: [UUID: Lease] = [:]
    private var byCredential: [RevokedCredential: Set<UUID>] = [:]

    package init() {}

    package var count: Int { leases.count }

    /// A stream opened with `credentials`, to be checked again at `recheckAt`.
    package mutating func open(_ token: UUID, credentials: Set<RevokedCredential>, recheckAt: Date) {
        leases[token] = Lease(credentials: credentials, recheckAt: recheckAt)
        for credential in credentials { byCredential[credential, default: []].insert(token) }
    }

    /// Forgets a stream (it ended, for whatever reason); returns whether it was open.
    @discardableResult
    package mutating func close(_ token: UUID) -> Bool {
        guard let lease = leases.removeValue(forKey: token) else { return false }
        for credential in lease.credentials {
            byCredential[credential]?.remove(token)
            if byCredential[credential]?.isEmpty == true { byCredential[credential] = nil }
        }
        return true
    }

    /// The streams opened with any of `credentials`: they must end, and are forgotten.
    package mutating func revoke(_ credentials: some Sequence<RevokedCredential>) -> [UUID] {
        var ended = Set<UUID>()
        for credential in credentials { ended.formUnion(byCredential[credential] ?? []) }
        for token in ended { close(token) }
        return ended.sorted { $0.uuidString < $1.uuidString }
    }

    /// The streams whose check is due at `now`, marked as being checked.
    package mutating func due(now: Date) -> [UUID] {
        let due = leases.filter { !$0.value.checking && $0.value.recheckAt <= now }.map(\.key)
        for token in due { leases[token]?.checking = true }
        return due
    }

    /// The answer of a check: the credentials live until `liveUntil` (checked again then, or
    /// `interval` after `now` if sooner), or no longer (nil). Returns whether the stream must end;
    /// a stream revoked or closed while it was checked stays ended.
    package mutating func checked(_ token: UUID, liveUntil: Date?, now: Date, interval: TimeInterval) -> Bool {
        guard leases[token] != nil else { return false }
        guard let liveUntil, liveUntil > now else {
            close(token)
            return true
        }
        leases[token]?.checking = false
        leases[token]?.recheckAt = min(liveUntil, now.addingTimeInterval(interval))
        return false
    }
}
