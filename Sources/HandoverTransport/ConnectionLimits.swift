import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// How long a connection may wait or dawdle, and how many may be open at once. The defaults
/// hold a client that sends nothing, trickles its headers or trickles its body for at most 30
/// seconds, and keep the server below the process's file-descriptor limit.
///
/// Set with `HANDOVER_IDLE_TIMEOUT`, `HANDOVER_HEADER_TIMEOUT`, `HANDOVER_BODY_TIMEOUT` (seconds)
/// and `HANDOVER_MAX_CONNECTIONS`.
public struct ConnectionLimits: Sendable, Equatable {
    /// A kept-alive connection with no request on the way is closed after this long.
    public var idleTimeout: TimeAmount = .seconds(30)
    /// A request's head must be whole this long after its first byte (else 408 and close).
    public var headerTimeout: TimeAmount = .seconds(10)
    /// A request's body must be whole this long after its head (else 408 and close).
    public var bodyTimeout: TimeAmount = .seconds(30)
    /// At most this many connections are open; more are closed as soon as they are accepted.
    /// Lowered at start to leave room below the process's open-file limit.
    public var maximumConnections: Int = 4096

    public init() {}

    /// ``maximumConnections``, lowered to leave 128 descriptors for the database, log and
    /// outbound connections when the process's open-file limit is lower.
    package var effectiveMaximumConnections: Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let got = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let got = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        // An unlimited limit (RLIM_INFINITY, all bits set) leaves the configured cap as it is.
        guard got == 0, limit.rlim_cur < UInt64(Int.max) else { return maximumConnections }
        return max(16, min(maximumConnections, Int(limit.rlim_cur) - 128))
    }
}
