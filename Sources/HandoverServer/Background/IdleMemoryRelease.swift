import Foundation
import HandoverCore
import NIOConcurrencyHelpers
import Vapor
#if canImport(Glibc)
import Glibc
#endif

/// Gives memory back once a burst of work is over. A shift change leaves the server's caches at
/// their high-water mark: SQLite's page cache on each connection (up to 2 MB each) and the C
/// heap's free pages, about 10 MB of a 67 MB server after 10,000 phones. During the storm they
/// pay; after it they only hold memory. So when a whole pass went by without a request, and
/// requests came since the last release, each SQLite connection drops its page cache
/// (`PRAGMA shrink_memory`) and the C heap returns its free pages to the system (`malloc_trim`).
/// The next request reads its pages again from the operating system's cache.
final class IdleMemoryRelease: Sendable {
    /// When a pass releases, apart from what it does, so that it can be tested by itself.
    struct Decision: Equatable {
        /// The requests counted at the previous pass.
        var seen = 0
        /// The requests counted at the last release.
        var released = 0

        /// Whether this pass releases: no request since the previous pass, and some since the
        /// last release (an idle server is not released again and again).
        mutating func pass(requests: Int) -> Bool {
            defer { seen = requests }
            guard requests == seen, requests != released else { return false }
            released = requests
            return true
        }
    }

    private let requests = NIOLockedValueBox(0)
    private let decision = NIOLockedValueBox(Decision())

    /// Counts a request (``RequestActivityMiddleware``).
    func noteRequest() {
        requests.withLockedValue { $0 += 1 }
    }

    /// One pass: releases when the server has been idle since the previous pass. Returns
    /// whether it released.
    ///
    /// - Parameter connections: the database, whose SQLite connections (the writer, each reader
    ///   and the checkpoints') drop their page caches; nothing on PostgreSQL, whose caches live in
    ///   its own server.
    @discardableResult
    func pass(releasing connections: DatabaseConnections) async throws -> Bool {
        let count = requests.withLockedValue { $0 }
        guard decision.withLockedValue({ $0.pass(requests: count) }) else { return false }
        try await connections.shrinkSQLiteMemory()
        _ = Self.mallocTrim?(0)
        return true
    }

    /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module leaves out `malloc.h`,
    /// and another C library (musl, Darwin) has none, so then there is nothing to call.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}

/// Counts every request for ``IdleMemoryRelease``: one uncontended lock, nothing else.
struct RequestActivityMiddleware: AsyncMiddleware {
    let activity: IdleMemoryRelease

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        activity.noteRequest()
        return try await next.respond(to: request)
    }
}
