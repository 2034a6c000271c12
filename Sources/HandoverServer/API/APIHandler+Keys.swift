import Fluent
import Foundation
import HandoverCore

/// `GET /api/v1/keys` and `DELETE /api/v1/keys/{keyID}`: the named credentials of people and
/// services, listed without the keys themselves, and revoked.
extension APIHandler {
    func listKeys(_ input: Operations.ListKeys.Input) async throws -> Operations.ListKeys.Output {
        let keys = try await APIKey.query(on: try CurrentRequest.request.db).filter(\.$scope != APIKeyScope.device.rawValue)
            .sort(\.$createdAt).sort(\.$id).all()
        return .ok(.init(body: .json(try keys.map(APIKeyView.init))))
    }

    func revokeKey(_ input: Operations.RevokeKey.Input) async throws -> Operations.RevokeKey.Output {
        let request = try CurrentRequest.request
        let keyID = try id(input.path.keyID, of: "key")
        guard let key = try await APIKey.find(keyID, on: request.db) else { throw APIError.notFound("key") }
        guard keyID != (try request.principal.keyID) else {
            throw APIError(.conflict, code: "revoking_own_key",
                           reason: "A key cannot revoke itself: revoke it with another admin key, or 'handover admin create-key' first.")
        }
        if try await key.revoke(at: clock.now(), on: request.db) {
            try await request.recordAdminAction(.keyChanged, "revoked \"\(key.name)\" (\(key.scope) key \(key.keyPrefix)…)", now: clock.now())
        }
        return .noContent(.init())
    }
}
