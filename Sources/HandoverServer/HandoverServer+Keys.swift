import Fluent
import HandoverCore

extension HandoverServer {
    /// Creates an API key and returns it (shown once).
    public func createAPIKey(name: String, scope: APIKeyScope) async throws -> String {
        try await APIKeyIssuer.create(name: name, scope: scope, on: application.db, now: clock.now())
    }

    /// Creates an admin key when the database has none (a first start); returns it, or nil.
    public func createFirstAdminKeyIfNeeded() async throws -> String? {
        let existing = try await APIKey.query(on: application.db).filter(\.$scope == APIKeyScope.admin.rawValue).count()
        guard existing == 0 else { return nil }
        return try await createAPIKey(name: "first admin key", scope: .admin)
    }

    /// Writes the keys' last uses noted in memory now (the background pass does it every 30 s):
    /// a device is seen when its key is used.
    public func flushKeyUses() async throws {
        try await keyUses.flush(on: application.db)
    }
}
