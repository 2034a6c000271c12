import FluentKit
import Foundation

extension OAuthClient {
    /// The registered client with this `client_id`, if any.
    package static func find(clientID: String, on database: any Database) async throws -> OAuthClient? {
        try await query(on: database).filter(\.$clientID == clientID).first()
    }
}
