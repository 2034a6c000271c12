import Foundation

/// APNs settings for out-of-band operations sent by push. Without them, `dispatcher: push`
/// answers 422 `push_not_configured`.
public struct PushConfiguration: Sendable {
    /// The APNs auth key (`AuthKey_XXXXXXXXXX.p8`), PEM.
    public var privateKeyPEM: String
    /// The key's 10-character id.
    public var keyID: String
    /// The team id that owns the key.
    public var teamID: String
    /// `apns-topic`: the phone app's bundle id.
    public var topic: String
    /// `https://api.push.apple.com` (production), `https://api.sandbox.push.apple.com`
    /// (development), or a test server's origin.
    public var baseURL: URL
    /// Certificates (PEM) to trust instead of the system's, for a loopback APNs test server.
    public var trustedCertificatesPEM: String?

    public init(privateKeyPEM: String, keyID: String, teamID: String, topic: String,
                baseURL: URL = URL(string: "https://api.push.apple.com")!, trustedCertificatesPEM: String? = nil) {
        self.privateKeyPEM = privateKeyPEM
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.baseURL = baseURL
        self.trustedCertificatesPEM = trustedCertificatesPEM
    }
}
