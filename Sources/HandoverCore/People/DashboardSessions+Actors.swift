import Foundation
import HandoverSchema

extension DashboardSessions {
    /// Who signed `session` in: the person (`Ada Lovelace <ada@example.org>`), or the key
    /// (`"ops" (admin key hov_AbC…)`); nil when neither is found any more.
    package static func who(of session: DashboardSession, on database: DatabaseHandle) async throws -> String? {
        if let personID = session.personID, let person = try await Person.stored(personID, on: database) {
            return AdminSignIn.describe(person)
        }
        guard let keyID = session.apiKeyID, let key = try await APIKey.stored(keyID, on: database) else { return nil }
        return "\"\(key.name)\" (\(key.scope) key \(key.keyPrefix)…)"
    }

    /// Who acts through `session`, as a device's history names them: the person
    /// (`Ada Lovelace <ada@example.org> on the dashboard`), or the admin key it signed in with
    /// (`"ops" (admin key hov_AbC…) on the dashboard`, marked break-glass when it was).
    package static func actor(of session: DashboardSession, on database: DatabaseHandle) async throws -> String {
        guard let who = try await who(of: session, on: database) else { return "the dashboard" }
        return "\(who) on the dashboard\(session.breakGlass ? ", break-glass" : "")"
    }
}
