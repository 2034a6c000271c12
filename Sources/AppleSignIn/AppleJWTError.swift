import Foundation

/// Why a JWT signed by Apple (an identity token or a server-to-server notification) was refused.
/// Each case names the check that failed.
public enum AppleJWTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token is not a well-formed JWT, or a claim could not be decoded; the reason says which part.
    case malformed(String)
    /// The header's `alg` is not `RS256` (`none`, `HS256`, `ES256`, …). Checked before any key is looked up.
    case unsupportedAlgorithm(String)
    /// No key with the header's `kid` is in Apple's key set, even after the refetch allowed.
    case unknownKeyID(String)
    /// Apple's key set could not be fetched and no usable key is held; the reason says why.
    case keySetUnavailable(String)
    /// The RS256 signature does not match the header and payload.
    case badSignature
    /// `iss` is not `https://appleid.apple.com`.
    case issuerMismatch(found: String)
    /// `aud` names none of the configured client ids.
    case audienceMismatch(found: [String], expected: [String])
    /// `exp` (plus the leeway) has passed.
    case expired(at: Date)
    /// `iat` is later than now plus the leeway.
    case issuedInFuture(at: Date)
    /// The `nonce` claim is missing or is not the SHA-256 hex digest of the raw nonce presented.
    case nonceMismatch

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed token: \(reason)"
        case .unsupportedAlgorithm(let alg): "unsupported algorithm \(alg) (only RS256 is accepted)"
        case .unknownKeyID(let kid): "unknown key id \(kid)"
        case .keySetUnavailable(let reason): "Apple's key set is unavailable: \(reason)"
        case .badSignature: "bad signature"
        case .issuerMismatch(let found): "issuer \(found) is not \(AppleID.issuer)"
        case .audienceMismatch(let found, let expected): "audience \(found) is none of \(expected)"
        case .expired(let at): "expired at \(at)"
        case .issuedInFuture(let at): "issued in the future (\(at))"
        case .nonceMismatch: "nonce does not match"
        }
    }
}
