import Foundation
import NIOConcurrencyHelpers

/// Why a stream was ended by its credential rather than by its own course.
package enum StreamEnd: String, Sendable {
    /// A credential it was opened with was revoked (a key, a session, a device's key).
    case revoked
    /// A check found the credential expired, idle past its limit, or gone.
    case expired
}

/// Every event stream this instance has open, and the credential each was opened with
/// (``StreamLeases``): a revocation ends the streams that depend on it at once, and
/// ``sweep(now:)`` checks each stream's credential again when it may have expired, and every
/// ``recheckInterval`` in any case, so that a revocation another instance failed to announce ends
/// the stream within that interval.
package final class OpenStreams: Sendable {
    /// Reads whether a stream's credentials are still live: until when, or nil when not.
    package typealias Recheck = @Sendable () async throws -> Date?

    /// The longest a stream goes without its credential being read again.
    package static let recheckInterval: TimeInterval = 15

    private struct State {
        var leases = StreamLeases()
        var ends: [UUID: AsyncStream<StreamEnd>.Continuation] = [:]
        var rechecks: [UUID: Recheck] = [:]

        mutating func forget(_ token: UUID) -> AsyncStream<StreamEnd>.Continuation? {
            rechecks[token] = nil
            return ends.removeValue(forKey: token)
        }
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Open streams on this instance.
    package var count: Int { state.withLockedValue { $0.leases.count } }

    /// Registers a stream opened with `credentials`, live until `liveUntil` as far as its opener
    /// knows; `recheck` reads that again. The lease's `ended` yields once when the stream must end.
    package func open(credentials: Set<RevokedCredential>, liveUntil: Date, now: Date, recheck: @escaping Recheck) -> StreamLease {
        let token = UUID()
        let (ended, continuation) = AsyncStream<StreamEnd>.makeStream(bufferingPolicy: .bufferingNewest(1))
        state.withLockedValue { state in
            state.leases.open(token, credentials: credentials, recheckAt: min(liveUntil, now.addingTimeInterval(Self.recheckInterval)))
            state.ends[token] = continuation
            state.rechecks[token] = recheck
        }
        return StreamLease(token: token, ended: ended, streams: self)
    }

    /// Ends every stream opened with one of `credentials`; returns how many.
    @discardableResult
    package func end(_ credentials: [RevokedCredential]) -> Int {
        let ended = state.withLockedValue { state in
            state.leases.revoke(credentials).compactMap { state.forget($0) }
        }
        for continuation in ended {
            continuation.yield(.revoked)
            continuation.finish()
        }
        return ended.count
    }

    /// Checks again the streams whose check is due at `now`, and ends those whose credential is no
    /// longer live; returns how many ended. A check that fails (the database unreachable) keeps
    /// its stream and tries again after ``recheckInterval``.
    @discardableResult
    package func sweep(now: Date) async -> Int {
        let due = state.withLockedValue { state in state.leases.due(now: now).compactMap { token in state.rechecks[token].map { (token, $0) } } }
        var ended = 0
        for (token, recheck) in due {
            let answer: Date?
            do {
                answer = try await recheck()
            } catch {
                answer = now.addingTimeInterval(Self.recheckInterval)
            }
            let continuation = state.withLockedValue { state -> AsyncStream<StreamEnd>.Continuation? in
                state.leases.checked(token, liveUntil: answer, now: now, interval: Self.recheckInterval) ? state.forget(token) : nil
            }
            if let continuation {
                continuation.yield(.expired)
                continuation.finish()
                ended += 1
            }
        }
        return ended
    }

    fileprivate func close(_ token: UUID) {
        let continuation = state.withLockedValue { state -> AsyncStream<StreamEnd>.Continuation? in
            state.leases.close(token)
            return state.forget(token)
        }
        continuation?.finish()
    }
}

/// One stream's registration in ``OpenStreams``: `ended` yields when its credential ends;
/// ``close()`` when the stream ends by itself.
package struct StreamLease: Sendable {
    package let token: UUID
    package let ended: AsyncStream<StreamEnd>
    fileprivate let streams: OpenStreams

    package func close() { streams.close(token) }
}
