import Foundation

/// Finds the live key a presented API key belongs to: the read every API request makes.
///
/// The reads that arrive while others are in flight are made together, in one statement on the
/// `key_hash` index (``GroupCommit`` batches them, as it batches writes). In a shift change that
/// turns seven reads per hand-over (a check-out, a run start, seven callbacks) into a few per
/// burst; on PostgreSQL each is a round trip and a statement parsed and planned.
///
/// Nothing is cached: each read begins after its request arrived (a request that comes while a
/// batch is in flight waits for the next), so a key revoked before a request arrives is refused
/// by that request, on every instance that shares the database. The statement is ``KeyStore``'s
/// (``KeyStore/liveKeys(_:)``).
package final class LiveKeys: Sendable {
    /// What the API needs of a live key: its id, name, scope, prefix, device and expiry.
    package struct Key: Sendable, Equatable, Decodable {
        package var id: UUID
        package var name: String
        package var scope: String
        package var key_prefix: String
        package var device_id: UUID?
        package var expires_at: Date?
        /// The one site the key is for (it then opens only the dashboard), or nil.
        package var site: String?

        package init(id: UUID, name: String, scope: String, key_prefix: String, device_id: UUID?, expires_at: Date?, site: String? = nil) {
            self.id = id
            self.name = name
            self.scope = scope
            self.key_prefix = key_prefix
            self.device_id = device_id
            self.expires_at = expires_at
            self.site = site
        }
    }

    private let batches = GroupCommit<String, Key?>(maxBatch: 256)
    /// How many batches may be read at once: each on a connection of its own.
    package let readers: Int
    private let database: @Sendable () -> DatabaseHandle?

    /// - Parameters:
    ///   - readers: how many reads may be in flight at once (SQLite's read connections, or the
    ///     share of PostgreSQL's pool that reads keys); a read that comes when all are busy joins
    ///     the next batch.
    ///   - database: where keys are read: the application's read connections, not one request's.
    package init(readers: Int, database: @escaping @Sendable () -> DatabaseHandle?) {
        self.readers = max(1, readers)
        self.database = database
    }

    /// The live key for a presented one, or nil: a key of another shape, unknown, revoked, or
    /// past its expiry at `now`.
    package func live(_ presented: String, now: Date) async throws -> Key? {
        guard presented.hasPrefix("hov_"), presented.utf8.count < 100 else { return nil }
        let database = database
        let row = try await batches.submit(BearerSecret.digest(presented), writers: readers) { hashes in
            do {
                guard let database = database() else {
                    throw DomainError(.storage, code: "no_database", reason: "The server's database is not configured.")
                }
                let found = try await KeyStore(database).liveKeys(Set(hashes))
                return hashes.map { .success(found[$0]) }
            } catch {
                return hashes.map { _ in .failure(error) }
            }
        }
        guard let row, row.expires_at.map({ $0 > now }) ?? true else { return nil }
        return row
    }
}
