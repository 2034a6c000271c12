import Foundation
import HandoverCore
import NIOConcurrencyHelpers
import NIOFoundationCompat
import Vapor

/// The generated association files, kept in memory so that serving them costs no database read.
///
/// Apple's CDN and Android's verifier fetch these files often and cache them for hours, so a few
/// seconds of staleness is harmless: an entry lives ``lifetime`` seconds, and this instance drops
/// it at once when its own registry changes. Another instance's change reaches it within the
/// lifetime.
final class AssociationFileCache: Sendable {
    /// A generated file: its bytes (nil when no app claims anything) and its ETag, and what every
    /// response serving it shares, built once: the body as a buffer, and the headers.
    struct Entry: Sendable {
        var body: Data?
        var etag: String?
        var madeAt: Date
        var buffer: ByteBuffer?
        /// ETag, Cache-Control and Content-Type: what a 200 and a 304 carry.
        var headers: HTTPHeaders

        init(body: Data?, madeAt: Date) {
            self.body = body
            self.etag = body.map(AssociationFiles.etag)
            self.madeAt = madeAt
            self.buffer = body.map { ByteBuffer(data: $0) }
            var headers = HTTPHeaders()
            if let etag {
                headers.replaceOrAdd(name: .eTag, value: etag)
                headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=300")
                headers.contentType = .json
            }
            self.headers = headers
        }
    }

    enum File: Sendable { case apple, android }

    let lifetime: TimeInterval
    private let entries = NIOLockedValueBox<[Bool: Entry]>([:])

    init(lifetime: TimeInterval = 5) {
        self.lifetime = lifetime
    }

    /// The cached entry when it is fresh; nil when it is missing or too old. Never waits.
    func fresh(_ file: File, now: Date) -> Entry? {
        guard let cached = entries.withLockedValue({ $0[file == .apple] }), now.timeIntervalSince(cached.madeAt) < lifetime,
              cached.madeAt <= now else { return nil }
        return cached
    }

    /// The cached entry, or a fresh one from `make` when it is missing or too old.
    func entry(_ file: File, now: Date, make: () async throws -> Data?) async throws -> Entry {
        let key = file == .apple
        if let cached = fresh(file, now: now) {
            return cached
        }
        let body = try await make()
        let entry = Entry(body: body, madeAt: now)
        entries.withLockedValue { $0[key] = entry }
        return entry
    }

    /// Forgets both files; the next request regenerates them.
    func invalidate() {
        entries.withLockedValue { $0.removeAll() }
    }
}
