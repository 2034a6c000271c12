import Foundation

/// The body a phone POSTs to an envelope's redeem URL:
///
/// ```json
/// {"operation":"op_7f3a…","challenge":"q5Z…","decision":"approve","number":47,
///  "signature":"MEU…","deviceID":"dev_12…"}
/// ```
///
/// A registration adds `"keys":{"signingKey":"…","agreementKey":"…"}`, the keys it enrolls;
/// its signature is made with that signing key (proof of possession).
public struct RedeemRequest: Sendable, Hashable {
    public var operation: String
    public var challenge: OperationChallenge
    public var decision: OperationDecision
    public var number: Int?
    /// base64url of the raw 64-byte ECDSA P-256 signature over ``OperationAnswer/canonicalBytes``.
    public var signature: String
    public var deviceID: String
    public var keys: DevicePublicKeys?

    public init(operation: String, challenge: OperationChallenge, decision: OperationDecision, number: Int?,
                signature: String, deviceID: String, keys: DevicePublicKeys?) {
        self.operation = operation
        self.challenge = challenge
        self.decision = decision
        self.number = number
        self.signature = signature
        self.deviceID = deviceID
        self.keys = keys
    }

    /// Signs `answer` with `keys` and makes the request that carries it.
    public init(signing answer: OperationAnswer, with keys: DeviceKeys) throws {
        self.init(operation: answer.operation, challenge: answer.challenge, decision: answer.decision, number: answer.number,
                  signature: try keys.sign(answer), deviceID: answer.deviceID, keys: answer.keys)
    }

    /// The answer this request claims, completed with what only the server knows (the
    /// operation's type and message), for signature verification.
    public func answer(type: OperationType, message: String?) -> OperationAnswer {
        OperationAnswer(deviceID: deviceID, operation: operation, type: type, challenge: challenge,
                        messageDigest: message.map(OperationAnswer.digest), decision: decision, number: number,
                        keys: type == .registration ? keys : nil)
    }

    // MARK: JSON

    /// The request as JSON with sorted keys.
    public func json() -> Data {
        let wire = Wire(operation: operation, challenge: challenge.text, decision: decision.rawValue, number: number,
                        signature: signature, deviceID: deviceID,
                        keys: keys.map { WireKeys(signingKey: $0.signingKeyText, agreementKey: $0.agreementKeyText) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(wire)) ?? Data()
    }

    /// Reads a request body, refusing each wrong or missing field by name.
    public init(json: Data) throws(OutOfBandError) {
        let accepted = #"{"operation","challenge","decision","number"?,"signature","deviceID","keys"?}"#
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: json) } catch {
            let field: String
            if case DecodingError.typeMismatch(_, let context) = error, let key = context.codingPath.first { field = key.stringValue }
            else if case DecodingError.valueNotFound(_, let context) = error, let key = context.codingPath.first { field = key.stringValue }
            else if case DecodingError.dataCorrupted(let context) = error, let key = context.codingPath.first { field = key.stringValue }
            else { field = "body" }
            throw OutOfBandError(field: field, problem: .invalidValue, detail: field == "body" ? "the body is not a JSON object" : "the value has the wrong type",
                                 accepted: accepted)
        }
        func required(_ value: String?, _ field: String) throws(OutOfBandError) -> String {
            guard let value else {
                throw OutOfBandError(field: field, problem: .missing, detail: "the request has no \(field)", accepted: accepted)
            }
            return value
        }
        let operation = try required(wire.operation, "operation")
        try OperationEnvelope.validateIdentifier(operation, field: "operation")
        let deviceID = try required(wire.deviceID, "deviceID")
        try OperationEnvelope.validateIdentifier(deviceID, field: "deviceID")
        let decisionText = try required(wire.decision, "decision")
        guard let decision = OperationDecision(rawValue: decisionText) else {
            throw OutOfBandError(field: "decision", problem: .invalidValue, detail: "'\(OutOfBandError.excerpt(decisionText))' is not a decision",
                                 accepted: "approve or deny")
        }
        if let number = wire.number, !NumberMatch.range.contains(number) {
            throw OutOfBandError(field: "number", problem: .invalidValue, detail: "\(number) is not a two-digit number",
                                 accepted: "a number from \(NumberMatch.range.lowerBound) to \(NumberMatch.range.upperBound), or no number")
        }
        let signature = try required(wire.signature, "signature")
        let signatureBytes = try Base64URL.decode(signature, field: "signature")
        guard signatureBytes.count == 64 else {
            throw OutOfBandError(field: "signature", problem: .invalidValue, detail: "the signature has \(signatureBytes.count) bytes",
                                 accepted: "base64url of a raw 64-byte ECDSA P-256 signature (r‖s)")
        }
        var keys: DevicePublicKeys?
        if let wireKeys = wire.keys {
            keys = try DevicePublicKeys(signingKey: try required(wireKeys.signingKey, "keys.signingKey"),
                                        agreementKey: try required(wireKeys.agreementKey, "keys.agreementKey"))
        }
        self.init(operation: operation, challenge: try OperationChallenge(text: try required(wire.challenge, "challenge")),
                  decision: decision, number: wire.number, signature: signature, deviceID: deviceID, keys: keys)
    }

    struct Wire: Codable {
        var operation: String?
        var challenge: String?
        var decision: String?
        var number: Int?
        var signature: String?
        var deviceID: String?
        var keys: WireKeys?
    }

    struct WireKeys: Codable {
        var signingKey: String?
        var agreementKey: String?
    }
}
