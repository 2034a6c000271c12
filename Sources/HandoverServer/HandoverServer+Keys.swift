import HandoverCore
import HandoverSchema

extension HandoverServer {
    /// Creates an API key and returns it (shown once).
    public func createAPIKey(name: String, scope: APIKeyScope) async throws -> String {
        try await APIKeyIssuer.create(name: name, scope: scope, on: databases.primary, now: clock.now())
    }

    /// Creates an admin key when the database has none (a first start); returns it, or nil.
    public func createFirstAdminKeyIfNeeded() async throws -> String? {
        guard try await !APIKeyIssuer.adminKeyExists(on: databases.primary) else { return nil }
        return try await createAPIKey(name: "first admin key", scope: .admin)
    }

    /// Writes the keys' last uses noted in memory now (the background pass does it every 30 s):
    /// a device is seen when its key is used.
    public func flushKeyUses() async throws {
        try await keyUses.flush(on: databases.primary)
    }
}
