import Fluent
import Foundation
import HandoverCore

/// Client ids (bundle ids) known from the app registry, with their Apple team: an appID
/// `ABCDE12345.com.example.notes` registers client `com.example.notes` of team `ABCDE12345`.
enum RegisteredClients {
    /// The team of `clientID`, or nil when no registered app has it.
    static func team(of clientID: String, on database: Database) async throws -> String? {
        guard !clientID.isEmpty, clientID.count <= 255 else { return nil }
        for app in try await RegisteredApp.query(on: database).all() {
            for appID in app.appIDs {
                guard let dot = appID.firstIndex(of: ".") else { continue }
                if appID[appID.index(after: dot)...] == clientID { return String(appID[..<dot]) }
            }
        }
        return nil
    }
}
