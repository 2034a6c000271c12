import AppleSignIn
import AsyncHTTPClient
import Foundation
import HandoverSchema
import Logging
import SessionTokens

/// Sign in with Apple on this server: verifies identity tokens and notifications with Apple's
/// keys, exchanges codes and checks refresh tokens with Apple's token endpoint.
package struct AppleSignInService: Sendable {
    package let configuration: SignInWithAppleConfiguration
    package let identityTokens: IdentityTokenVerifier
    package let notifications: ServerNotificationVerifier
    /// One token client per client id: the client secret names the client id (`sub`).
    package let tokenClients: [String: AppleTokenClient]
    package let grantChecks: AppleGrantChecks

    package init(configuration: SignInWithAppleConfiguration, httpClient: HTTPClient, clock: ServerClock,
         settings: SessionSettings, sealer: SecretSealer, logger: Logger) throws {
        self.configuration = configuration
        let now: @Sendable () -> Date = { clock.now() }
        let keySet = AppleKeySet(baseURL: configuration.baseURL, httpClient: httpClient, now: now)
        identityTokens = IdentityTokenVerifier(clientIDs: configuration.clientIDs, keySet: keySet, now: now)
        notifications = ServerNotificationVerifier(clientIDs: configuration.clientIDs, keySet: keySet, now: now)
        var clients: [String: AppleTokenClient] = [:]
        for clientID in configuration.clientIDs {
            let secret: ClientSecret
            do {
                secret = try ClientSecret(privateKeyPEM: configuration.privateKeyPEM, teamID: configuration.teamID,
                                          keyID: configuration.keyID, clientID: clientID, now: now)
            } catch {
                throw ConfigurationError(setting: "--apple-private-key-file (HANDOVER_APPLE_PRIVATE_KEY_FILE)",
                                         problem: "the key is not an ES256 (P-256) private key (\(error))",
                                         accepted: "the .p8 file of the key named by --apple-key-id, as Apple let you download it")
            }
            clients[clientID] = AppleTokenClient(clientSecret: secret, httpClient: httpClient, baseURL: configuration.baseURL)
        }
        tokenClients = clients
        grantChecks = AppleGrantChecks(clients: clients, sealer: sealer, clock: clock,
                                       interval: settings.appleValidationInterval, logger: logger)
    }
}

/// Checks users' Apple refresh tokens with Apple, at most once per interval per user: concurrent
/// refreshes of one user share one call, and across instances a claim in the user's row keeps a
/// second instance from calling at the same time. The claim and the writes are ``SessionStore``'s.
package actor AppleGrantChecks {
    private let clients: [String: AppleTokenClient]
    private let sealer: SecretSealer
    private let clock: ServerClock
    private let interval: TimeInterval
    private let logger: Logger
    private var inFlight: [UUID: Task<AppleGrantCheck, Never>] = [:]

    package init(clients: [String: AppleTokenClient], sealer: SecretSealer, clock: ServerClock, interval: TimeInterval, logger: Logger) {
        self.clients = clients
        self.sealer = sealer
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    package func check(_ user: User, on database: DatabaseHandle) async -> AppleGrantCheck {
        guard let userID = user.id, let sealed = user.appleRefreshToken else { return .valid }
        if let at = user.appleValidatedAt, clock.now().timeIntervalSince(at) < interval { return .valid }
        if let running = inFlight[userID] { return await running.value }
        let task = Task { await self.callApple(userID: userID, sealed: sealed, clientID: user.appleClientID ?? "", on: database) }
        inFlight[userID] = task
        let outcome = await task.value
        inFlight[userID] = nil
        return outcome
    }

    private func callApple(userID: UUID, sealed: String, clientID: String, on database: DatabaseHandle) async -> AppleGrantCheck {
        let now = clock.now()
        let store = SessionStore(database)
        guard store.speaksSQL, let client = clients[clientID] else { return .valid }
        do {
            // Claim the check; another instance holding a fresh claim is checking right now.
            guard try await store.claimAppleCheck(userID: userID, until: now.addingTimeInterval(60), now: now, interval: interval) else { return .valid }
            let refreshToken = try sealer.openString(sealed)
            let answer: Result<Void, AppleTokenError>
            do {
                _ = try await client.validateRefreshToken(refreshToken)
                answer = .success(())
            } catch {
                answer = .failure(error)
            }
            switch answer {
            case .success:
                try await store.appleGrantValid(userID: userID, at: clock.now())
                return .valid
            case .failure(let error) where error.isInvalidGrant:
                try await store.forgetAppleGrant(userID: userID)
                return .revoked
            case .failure(let error):
                // Apple could not answer (down, throttled): keep the session, ask again in an hour.
                var retryAt = now.addingTimeInterval(3600)
                if case .throttled(let seconds?) = error { retryAt = now.addingTimeInterval(TimeInterval(max(seconds, 60))) }
                logger.warning("could not check a Sign in with Apple grant; keeping the session", metadata: ["error": "\(error)"])
                try await store.deferAppleCheck(userID: userID, until: retryAt)
                return .valid
            }
        } catch {
            logger.warning("Apple grant check failed", metadata: ["error": "\(error)"])
            return .valid
        }
    }
}
