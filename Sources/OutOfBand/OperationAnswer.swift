import Crypto
import Foundation

/// The phone's answer to one operation, as the text it signs.
///
/// Its canonical bytes are UTF-8 lines joined by `\n`, with no trailing line break:
///
/// ```
/// handover-oob-answer/v1
/// device:<deviceID>
/// operation:<operation id>
/// type:<operation type>
/// challenge:<challenge, base64url>
/// message-sha256:<base64url of SHA-256 of the message's UTF-8, or empty>
/// decision:<approve|deny>
/// number:<the number picked, or empty>
/// keys:<signingKey>.<agreementKey> for a registration, or empty
/// ```
///
/// Every field is either from a restricted alphabet (ids, base64url, digits) or hashed, so no
/// field can smuggle a line break and two different answers never have the same bytes. The
/// signature covers the message hash, so the server knows the text the user approved is the
/// text it sent; and the enrolled keys, so a registration cannot be re-pointed at other keys.
public struct OperationAnswer: Sendable, Hashable {
    public var deviceID: String
    public var operation: String
    public var type: OperationType
    public var challenge: OperationChallenge
    /// SHA-256 of the envelope's message, when it had one.
    public var messageDigest: Data?
    public var decision: OperationDecision
    public var number: Int?
    /// The keys a registration enrolls; `nil` for other types.
    public var keys: DevicePublicKeys?

    public init(deviceID: String, operation: String, type: OperationType, challenge: OperationChallenge,
                messageDigest: Data?, decision: OperationDecision, number: Int?, keys: DevicePublicKeys?) {
        self.deviceID = deviceID
        self.operation = operation
        self.type = type
        self.challenge = challenge
        self.messageDigest = messageDigest
        self.decision = decision
        self.number = number
        self.keys = keys
    }

    /// The answer to `envelope` from `deviceID`: the envelope's fields with the user's decision.
    public init(envelope: OperationEnvelope, deviceID: String, decision: OperationDecision, number: Int?, keys: DevicePublicKeys?) {
        self.init(deviceID: deviceID, operation: envelope.operation, type: envelope.type, challenge: envelope.challenge,
                  messageDigest: envelope.message.map(Self.digest), decision: decision, number: number,
                  keys: envelope.type == .registration ? keys : nil)
    }

    /// SHA-256 of a message's UTF-8.
    public static func digest(_ message: String) -> Data { Data(SHA256.hash(data: Data(message.utf8))) }

    /// The bytes the device signs and the server verifies.
    public var canonicalBytes: Data {
        let lines = [
            "handover-oob-answer/v1",
            "device:\(deviceID)",
            "operation:\(operation)",
            "type:\(type.rawValue)",
            "challenge:\(challenge.text)",
            "message-sha256:\(messageDigest.map { Base64URL.encode($0) } ?? "")",
            "decision:\(decision.rawValue)",
            "number:\(number.map(String.init) ?? "")",
            "keys:\(keys.map { "\($0.signingKeyText).\($0.agreementKeyText)" } ?? "")",
        ]
        return Data(lines.joined(separator: "\n").utf8)
    }
}
