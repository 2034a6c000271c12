import Crypto
import Foundation

/// A phone's APNs device token, signed with its enrolled key, for the server to push to it.
///
/// The phone PUTs it to `/oob/devices/<deviceID>/push-token` whenever iOS hands it a token:
///
/// ```json
/// {"deviceID":"dev_12…","token":"a1b2…","timestamp":1750000000,"signature":"…"}
/// ```
///
/// `signature` is base64url of the raw 64-byte ECDSA P-256 signature over these lines, joined
/// by LF:
///
/// ```
/// handover-oob-push-token/v1
/// device:<deviceID>
/// token:<token, lower-case hex>
/// timestamp:<whole UNIX seconds>
/// ```
///
/// The server accepts it only from the enrolled key and within ``maximumClockSkew`` of its own time,
/// so a captured registration cannot be replayed later to move pushes back to an old token.
public struct PushTokenRegistration: Sendable, Hashable {
    public var deviceID: String
    /// The APNs device token as lower-case hex (32 to 100 bytes of token, so 64 to 200 characters).
    public var token: String
    public var timestamp: Date
    public var signature: String

    /// How far the timestamp may be from the server's time.
    public static let maximumClockSkew: TimeInterval = 300
    /// The timestamps a body may carry, in UNIX seconds: 1970 to the end of 9999 (the bounds
    /// `openapi.yaml` declares), so the signed lines' `Int64` of it never traps.
    public static let timestamps: ClosedRange<Int64> = 0...253_402_300_799

    /// Signs a registration of `token` for `deviceID` at `now`.
    public init(deviceID: String, token: String, keys: DeviceKeys, now: Date = Date()) throws {
        self.deviceID = deviceID
        self.token = token.lowercased()
        self.timestamp = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        self.signature = ""
        self.signature = Base64URL.encode(try keys.signing.signature(for: canonicalBytes).rawRepresentation)
    }

    /// The signed lines.
    public var canonicalBytes: Data {
        Data(["handover-oob-push-token/v1", "device:\(deviceID)", "token:\(token)",
              "timestamp:\(Int64(timestamp.timeIntervalSince1970))"].joined(separator: "\n").utf8)
    }

    /// Whether the signature is the enrolled key's and the timestamp is within ``maximumClockSkew`` of `now`.
    public func isValid(for keys: DevicePublicKeys, now: Date) -> Bool {
        guard abs(now.timeIntervalSince(timestamp)) <= Self.maximumClockSkew,
              let bytes = try? Base64URL.decode(signature, field: "signature"), bytes.count == 64,
              let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) else { return false }
        return keys.signing.isValidSignature(parsed, for: canonicalBytes)
    }

    private struct Wire: Codable {
        var deviceID: String
        var token: String
        var timestamp: Int64
        var signature: String
    }

    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Wire(deviceID: deviceID, token: token, timestamp: Int64(timestamp.timeIntervalSince1970),
                                         signature: signature))) ?? Data()
    }

    /// Reads a body, naming the field at fault.
    public init(json: Data) throws(OutOfBandError) {
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: json) } catch {
            throw OutOfBandError(field: "body", problem: .invalidValue, detail: "it is not the JSON of a push token registration",
                                 accepted: #"{"deviceID":…,"token":"<hex>","timestamp":<UNIX seconds>,"signature":"<base64url>"}"#)
        }
        let hex = wire.token.lowercased()
        guard (64...200).contains(hex.count), hex.count.isMultiple(of: 2), hex.allSatisfy(\.isHexDigit) else {
            throw OutOfBandError(field: "token", problem: .invalidValue, detail: "it is not an APNs device token",
                                 accepted: "the token as hex, 64 to 200 characters")
        }
        guard Self.timestamps.contains(wire.timestamp) else {
            throw OutOfBandError(field: "timestamp", problem: .invalidValue, detail: "\(wire.timestamp) is not a time this server can compare",
                                 accepted: "UNIX seconds from \(Self.timestamps.lowerBound) to \(Self.timestamps.upperBound)")
        }
        try OperationEnvelope.validateIdentifier(wire.deviceID, field: "deviceID")
        deviceID = wire.deviceID
        token = hex
        timestamp = Date(timeIntervalSince1970: TimeInterval(wire.timestamp))
        signature = wire.signature
    }
}
