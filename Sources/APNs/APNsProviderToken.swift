import Crypto
import Foundation
import LinkCallbacks
import NIOConcurrencyHelpers

/// The provider authentication token APNs wants in `authorization: bearer …`: an ES256 JWT with
/// header `{"alg":"ES256","kid":<key id>}` and claims `{"iss":<team id>,"iat":<seconds>}`, signed
/// with the `.p8` key from your developer account.
///
/// APNs refuses tokens older than an hour (`ExpiredProviderToken`) and tokens renewed more often
/// than every 20 minutes (`TooManyProviderTokenUpdates`), so one token is signed and reused for
/// ``refreshInterval`` (50 minutes by default, between 20 and 59) and then renewed. Safe to share
/// between tasks: they all get the same token, and only one renews it.
///
/// ```swift
/// let token = try APNsProviderToken(privateKeyPEM: p8, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
/// let client = APNsClient(httpClient: .shared, token: token, environment: .production)
/// ```
public final class APNsProviderToken: Sendable {
    /// APNs refuses a token renewed sooner than this after the previous one.
    public static let minimumRefreshInterval: TimeInterval = 20 * 60
    /// APNs refuses a token older than this.
    public static let maximumAge: TimeInterval = 60 * 60

    public let keyID: String
    public let teamID: String
    /// How long one token is reused.
    public let refreshInterval: TimeInterval

    private let key: P256.Signing.PrivateKey
    private let now: @Sendable () -> Date
    private let cached = NIOLockedValueBox<(jwt: String, issuedAt: Date)?>(nil)

    /// - Parameters:
    ///   - privateKeyPEM: the `.p8` file's text (`-----BEGIN PRIVATE KEY-----`, PKCS#8 P-256).
    ///   - keyID: the key's 10-character id (`kid`).
    ///   - teamID: your 10-character team id (`iss`).
    ///   - refreshInterval: how long a token is reused: 20 to 59 minutes, 50 by default.
    ///   - now: the clock; tests inject their own.
    public convenience init(privateKeyPEM: String, keyID: String, teamID: String, refreshInterval: TimeInterval = 50 * 60,
                            now: @escaping @Sendable () -> Date = { Date() }) throws(APNsProviderTokenError) {
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM) } catch {
            throw .invalidPrivateKey("\(error)")
        }
        try self.init(privateKey: key, keyID: keyID, teamID: teamID, refreshInterval: refreshInterval, now: now)
    }

    public init(privateKey: P256.Signing.PrivateKey, keyID: String, teamID: String, refreshInterval: TimeInterval = 50 * 60,
                now: @escaping @Sendable () -> Date = { Date() }) throws(APNsProviderTokenError) {
        guard Self.isIdentifier(keyID) else { throw .invalidKeyID(keyID) }
        guard Self.isIdentifier(teamID) else { throw .invalidTeamID(teamID) }
        guard refreshInterval >= Self.minimumRefreshInterval, refreshInterval < Self.maximumAge else {
            throw .invalidRefreshInterval(seconds: refreshInterval)
        }
        self.key = privateKey
        self.keyID = keyID
        self.teamID = teamID
        self.refreshInterval = refreshInterval
        self.now = now
    }

    private static func isIdentifier(_ text: String) -> Bool {
        text.count == 10 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// The token to send now: the cached one while it is younger than ``refreshInterval``,
    /// otherwise a new one.
    public func current() throws(APNsProviderTokenError) -> String {
        let now = now()
        return try cached.withLockedValue { cached -> Result<String, APNsProviderTokenError> in
            if let token = cached {
                let age = now.timeIntervalSince(token.issuedAt)
                // A clock set back by more than a minute also renews: `iat` must not be in the future.
                if age < refreshInterval, age > -60 { return .success(token.jwt) }
            }
            return sign(at: now).map { token in
                cached = token
                return token.jwt
            }
        }.get()
    }

    /// Renews after APNs answered `ExpiredProviderToken` to `rejected`. If another task already
    /// renewed it, returns that newer token instead of signing again (APNs counts every renewal).
    public func renew(replacing rejected: String) throws(APNsProviderTokenError) -> String {
        let now = now()
        return try cached.withLockedValue { cached -> Result<String, APNsProviderTokenError> in
            if let token = cached, token.jwt != rejected { return .success(token.jwt) }
            return sign(at: now).map { token in
                cached = token
                return token.jwt
            }
        }.get()
    }

    /// When the cached token was issued (its `iat`), if there is one.
    public var issuedAt: Date? { cached.withLockedValue { $0?.issuedAt } }

    private func sign(at now: Date) -> Result<(jwt: String, issuedAt: Date), APNsProviderTokenError> {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(Int64(issuedAt.timeIntervalSince1970))}"#
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        do {
            let signature = try key.signature(for: Data(input.utf8))
            return .success((input + "." + Base64URL.encode(signature.rawRepresentation), issuedAt))
        } catch {
            return .failure(.signingFailed("\(error)"))
        }
    }
}

/// A provider token could not be made.
public enum APNsProviderTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidPrivateKey(String)
    case invalidKeyID(String)
    case invalidTeamID(String)
    case invalidRefreshInterval(seconds: TimeInterval)
    case signingFailed(String)

    public var description: String {
        switch self {
        case .invalidPrivateKey(let detail):
            "the APNs key is not a P-256 private key in PEM (the .p8 file from your developer account): \(detail)"
        case .invalidKeyID(let id):
            "the key id '\(id)' is not the 10 letters and digits shown with the key in your developer account"
        case .invalidTeamID(let id):
            "the team id '\(id)' is not the 10 letters and digits of your developer team"
        case .invalidRefreshInterval(let seconds):
            "a token reused for \(Int(seconds)) s breaks APNs's rules: reuse it for 1,200 to 3,599 s (20 to 59 minutes)"
        case .signingFailed(let detail):
            "the provider token could not be signed: \(detail)"
        }
    }
}
