import Foundation
import HandoverSchema

/// A client's registration as RFC 7591 makes it, stored: its id, its secret's digest, and its
/// Back-Channel Logout endpoint, kept on the app it names (a registered app's backend) or on the
/// client itself (a fleet backend).
package struct ClientRegistration: Sendable {
    package var clientID: String
    package var secretHash: String
    package var clientName: String?
    package var softwareID: String?
    package var backchannelLogoutURI: String?
    package var backchannelLogoutSessionRequired: Bool

    package init(clientID: String, secretHash: String, clientName: String?, softwareID: String?, backchannelLogoutURI: String?,
                 backchannelLogoutSessionRequired: Bool) {
        self.clientID = clientID
        self.secretHash = secretHash
        self.clientName = clientName
        self.softwareID = softwareID
        self.backchannelLogoutURI = backchannelLogoutURI
        self.backchannelLogoutSessionRequired = backchannelLogoutSessionRequired
    }

    /// Saves the registration (a new client, or the same id registered again with a new secret),
    /// and the logout endpoint on `app` when it is a registered app's backend, in one transaction.
    package func save(for app: RegisteredApp?, now: Date, on database: DatabaseHandle) async throws {
        try await RegistryStore(database).save(self, for: app, now: now)
    }
}
