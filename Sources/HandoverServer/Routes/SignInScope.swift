import Foundation
import HandoverCore
import HandoverSchema
import Vapor

/// The `scope` and `deviceID` a sign-in may carry (Apple or email link).
struct SignInScope {
    static let accepted: Set<String> = ["openid", "email", "profile", "offline_access", "device_sso"]

    /// Whether `device_sso` was asked: a device secret and an ID token come back.
    var deviceSSO: Bool
    /// The registered fleet device the app runs on, whose logout run ends the device secret.
    var deviceID: UUID?

    static func parse(scope: String?, deviceID: UUID?, in databases: ServerDatabases) async throws -> SignInScope {
        let words = (scope ?? "").split(separator: " ").map(String.init)
        if let unknown = words.first(where: { !accepted.contains($0) }) {
            throw APIError.invalid("scope", "'\(unknown.prefix(40))' is not a scope here; accepted: \(accepted.sorted().joined(separator: ", ")).")
        }
        if let deviceID, try await Device.stored(deviceID, on: databases.primary) == nil {
            throw APIError.invalid("deviceID", "no registered device has this id.")
        }
        return SignInScope(deviceSSO: words.contains("device_sso"), deviceID: deviceID)
    }
}
