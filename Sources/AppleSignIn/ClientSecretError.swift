/// Why a ``ClientSecret`` could not be configured or signed.
public enum ClientSecretError: Error, Equatable, Sendable {
    /// The key id is not the 10-character id Apple shows for the key.
    case invalidKeyID(String)
    /// The team id is empty.
    case invalidTeamID(String)
    /// The client id is empty.
    case invalidClientID
    /// The lifetime is not between 1 second and 180 days (15,777,000 s).
    case invalidLifetime(seconds: Double)
    /// The private key is not a PEM PKCS#8 P-256 key (the .p8 file Apple lets you download once).
    case invalidPrivateKey(String)
    /// Signing failed.
    case signingFailed(String)
}
