import Foundation
import HandoverSchema

/// Client ids (bundle ids) known from the app registry, with their Apple team: an appID
/// `ABCDE12345.com.example.notes` registers client `com.example.notes` of team `ABCDE12345`.
package enum RegisteredClients {
    /// The client id (bundle id) of an appID: `com.example.notes` for `ABCDE12345.com.example.notes`.
    package static func clientID(of appID: String) -> String? {
        appID.firstIndex(of: ".").map { String(appID[appID.index(after: $0)...]) }
    }

    /// Every client id of `app`.
    package static func clientIDs(of app: RegisteredApp) -> Set<String> {
        Set(app.appIDs.compactMap(clientID(of:)))
    }

    /// The team of `clientID`, or nil when no registered app has it.
    package static func team(of clientID: String, on database: DatabaseHandle) async throws -> String? {
        guard !clientID.isEmpty, clientID.count <= 255 else { return nil }
        for app in try await RegistryStore(database).apps() {
            for appID in app.appIDs where Self.clientID(of: appID) == clientID {
                return appID.firstIndex(of: ".").map { String(appID[..<$0]) }
            }
        }
        return nil
    }

    /// The registered app that has `clientID`, if any.
    package static func app(withClientID clientID: String, on database: DatabaseHandle) async throws -> RegisteredApp? {
        try await RegistryStore(database).apps().first { clientIDs(of: $0).contains(clientID) }
    }
}
