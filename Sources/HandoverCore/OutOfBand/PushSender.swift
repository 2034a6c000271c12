import APNs
import AsyncHTTPClient
import Foundation
import HandoverProtocol
import NIOSSL
import OutOfBand

/// Sends operations by APNs: one HTTP/2 client and one provider token (reused for 50 minutes)
/// for the whole server.
package final class PushSender: Sendable {
    package let topic: String
    private let httpClient: HTTPClient
    private let client: APNsClient

    package init(configuration: PushConfiguration, now: @escaping @Sendable () -> Date) throws {
        let token: APNsProviderToken
        do {
            token = try APNsProviderToken(privateKeyPEM: configuration.privateKeyPEM, keyID: configuration.keyID,
                                          teamID: configuration.teamID, now: now)
        } catch {
            throw ConfigurationError(setting: "--apns-private-key-file (HANDOVER_APNS_PRIVATE_KEY_FILE)", problem: "the APNs key could not be read (\(error))",
                                     accepted: "the AuthKey_<keyID>.p8 file from the developer account (PEM, P-256)")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let pem = configuration.trustedCertificatesPEM {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))
            } catch {
                throw ConfigurationError(setting: "--apns-trust-file", problem: "the certificates could not be read (\(error))",
                                         accepted: "PEM certificates")
            }
        }
        httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        client = APNsClient(httpClient: httpClient, token: token, environment: APNsEnvironment(baseURL: configuration.baseURL),
                            timeout: .seconds(10))
        topic = configuration.topic
    }

    /// What became of a push, as the operation records it.
    package enum Result: Sendable, Equatable {
        case delivered(apnsID: String)
        /// 410: the token is dead; the device's token is turned off.
        case unregistered
        case failed(String)

        package var outcome: PushDeliveryOutcome {
            switch self {
            case .delivered: .delivered
            case .unregistered: .unregistered
            case .failed: .failed
            }
        }

        /// The outcome's name, and for a failure the reason after a colon.
        package var text: String {
            if case .failed(let reason) = self { return "\(outcome.rawValue): \(reason)" }
            return outcome.rawValue
        }
    }

    /// Sends `payload` to `deviceToken`, expiring with the operation.
    package func send(_ payload: OperationPayload, type: OperationType, requester: String, to deviceToken: String, expiresAt: Date) async -> Result {
        let push = OperationPush(payload: payload, title: Self.title(type), body: "\(requester) asks you to confirm on this phone.")
        let body: Data
        do { body = try push.json() } catch { return .failed("\(error)") }
        do {
            switch try await client.send(deviceToken: deviceToken, payload: body, topic: topic, expiration: .at(expiresAt)) {
            case .delivered(let apnsID): return .delivered(apnsID: apnsID)
            case .unregistered: return .unregistered
            }
        } catch {
            return .failed(error.description)
        }
    }

    package static func title(_ type: OperationType) -> String {
        switch type {
        case .registration: "Enroll this phone"
        case .authentication: "Sign-in request"
        case .transactionConfirmation: "Confirm a transaction"
        case .deregistration: "Remove this phone"
        }
    }

    package func shutdown() async {
        try? await httpClient.shutdown()
    }
}
