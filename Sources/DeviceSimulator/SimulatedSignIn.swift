import Foundation
import HandoverClient
import HandoverProtocol

/// A person signed in to some apps of the shared phone before its hand-over, as a shift starts:
/// the first app by an email link (scope `device_sso`, with the phone's fleet device id), the
/// others by OpenID Connect Native SSO with the first app's device secret. Each of those apps
/// first gets its backend's Back-Channel Logout URI in the registry, so the hand-over that ends
/// the sessions tells the backends.
struct SimulatedSignIn: Sendable {
    let server: URL
    let registry: FleetRegistry
    let user: ServerLogoutSimulation.SignedInUser
    /// Where the first app keeps the device secret for its siblings.
    let sharedStore: URL

    /// Signs `user` in to the apps named in `user.backends`; returns each app's session id (`sid`).
    func run(apps: [(name: String, id: UUID)], deviceID: UUID) async throws -> [String: String] {
        let chosen = apps.filter { user.backends[$0.name] != nil }
        for app in chosen {
            guard let uri = user.backends[app.name] else { continue }
            try await registry.updateApp(app.id.uuidString, .init(backchannelLogoutURI: uri.absoluteString))
        }
        var sessions: [String: String] = [:]
        let store = FileSecretStore(directory: sharedStore)
        for (index, app) in chosen.enumerated() {
            let clientID = "com.example.\(app.name)"
            let accessToken: String
            if index == 0 {
                let signIn = EmailLinkSignIn(server: server)
                let inbox = MailDropInbox(folder: user.mailDrop)
                let before = try? await inbox.signInLink(to: user.email, timeout: .zero)
                try await signIn.requestLink(for: user.email, deviceID: deviceID, clientID: clientID)
                let link = try await inbox.signInLink(to: user.email, excluding: before.map { [$0] } ?? [])
                let grant = try await signIn.redeem(link: link, clientID: clientID, deviceID: deviceID, deviceSSO: true)
                guard let secret = grant.deviceSecret, let idToken = grant.idToken else {
                    throw SimulatorError("the email-link sign-in of \(app.name) answered no device secret for its siblings")
                }
                try SharedSession(server: server, clientID: clientID, store: store).keep(deviceSecret: secret, idToken: idToken)
                accessToken = grant.accessToken
            } else {
                guard let tokens = try await SharedSession(server: server, clientID: clientID, store: store).signInSibling() else {
                    throw SimulatorError("\(app.name) found no device session to sign in with")
                }
                accessToken = tokens.accessToken
            }
            sessions[app.name] = UnverifiedClaims.of(accessToken)?.sessionID ?? "?"
        }
        return sessions
    }
}
