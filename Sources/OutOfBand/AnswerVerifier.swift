import Foundation

/// What a server remembers about an operation it issued, to check the phone's answer against.
public struct IssuedOperation: Sendable, Hashable {
    /// The envelope as sent.
    public var envelope: OperationEnvelope
    /// The number the initiating page shows, when the envelope offered number choices.
    public var correctNumber: Int?
    /// The device the operation was addressed to; `nil` lets any enrolled device answer (a QR
    /// code shown to whoever scans it), leaving it to the server to check that device's owner.
    public var deviceID: String?

    public init(envelope: OperationEnvelope, correctNumber: Int? = nil, deviceID: String? = nil) {
        self.envelope = envelope
        self.correctNumber = correctNumber
        self.deviceID = deviceID
    }
}

/// An answer that passed every check.
public struct VerifiedAnswer: Sendable, Hashable {
    public var decision: OperationDecision
    public var deviceID: String
    /// The keys a registration enrolls (checked by its signature); `nil` for other types.
    public var enrolledKeys: DevicePublicKeys?

    /// The event to apply to the operation's status: `.redeem(decision)`.
    public var event: OperationEvent { .redeem(decision) }
}

/// Why a server refused a phone's answer.
public enum AnswerRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request names another operation than the one at this redeem URL.
    case operationMismatch(expected: String, received: String)
    /// The challenge is not the one issued.
    case challengeMismatch
    /// The operation expired before the answer arrived.
    case expired(at: Date)
    /// The operation was addressed to another device.
    case wrongDevice(expected: String, received: String)
    /// The server has no keys for the answering device (and the operation is not a registration).
    case unknownDevice(String)
    /// A registration answer did not include the keys to enroll.
    case registrationKeysMissing
    /// The signature does not verify with the device's key over the answer's canonical bytes.
    case badSignature
    /// Number matching is on and the approval named no number.
    case numberMissing
    /// Number matching is on and the approval named a wrong number.
    case wrongNumber(Int)
    /// The approval named a number, but the operation had no number matching.
    case numberNotExpected

    /// Whether the operation must fail for good rather than wait for another answer.
    ///
    /// A wrong number fails it: one guess only, so picking at random wins at most one time in
    /// three, and an attacker's prompt that the user mis-answers is dead. Expiry ends it as well
    /// (apply `.expire`). Every other rejection is a bad request that leaves the operation
    /// waiting: failing it would let anyone who saw a QR code cancel the user's operation.
    public var endsOperation: Bool {
        switch self {
        case .wrongNumber, .expired: true
        case .operationMismatch, .challengeMismatch, .wrongDevice, .unknownDevice, .registrationKeysMissing, .badSignature,
             .numberMissing, .numberNotExpected: false
        }
    }

    /// A stable code for JSON error bodies: `bad_signature`, `wrong_number`…
    public var code: String {
        switch self {
        case .operationMismatch: "operation_mismatch"
        case .challengeMismatch: "challenge_mismatch"
        case .expired: "expired"
        case .wrongDevice: "wrong_device"
        case .unknownDevice: "unknown_device"
        case .registrationKeysMissing: "registration_keys_missing"
        case .badSignature: "bad_signature"
        case .numberMissing: "number_missing"
        case .wrongNumber: "wrong_number"
        case .numberNotExpected: "number_not_expected"
        }
    }

    public var description: String {
        switch self {
        case .operationMismatch(let expected, let received):
            "the answer is for operation \(received), not \(expected)"
        case .challengeMismatch:
            "the challenge is not the one issued for this operation"
        case .expired(let at):
            "the operation expired at \(at.ISO8601Format())"
        case .wrongDevice(let expected, let received):
            "the operation was sent to device \(expected), not \(received)"
        case .unknownDevice(let device):
            "device \(device) has no enrolled keys"
        case .registrationKeysMissing:
            "a registration answer must carry the keys to enroll (keys.signingKey, keys.agreementKey)"
        case .badSignature:
            "the signature does not verify with the device's key"
        case .numberMissing:
            "the approval must name the number shown on the page"
        case .wrongNumber(let number):
            "\(number) is not the number shown on the page"
        case .numberNotExpected:
            "the operation has no number matching, but the approval names a number"
        }
    }
}

/// Checks a phone's ``RedeemRequest`` against the ``IssuedOperation`` (server side).
///
/// ```swift
/// let request = try RedeemRequest(json: body)                      // OutOfBandError → 400
/// let keys = try await devices.publicKeys(for: request.deviceID)   // nil when unknown
/// let verified = try AnswerVerifier.verify(request, issued: issued, deviceKeys: keys, now: Date())
/// let next = try status.after(verified.event)                      // then UPDATE … WHERE status = old
/// ```
///
/// The single-use rule is the caller's: apply the event in a conditional update so only one
/// answer moves the operation out of `created`/`dispatched`.
public enum AnswerVerifier {
    /// Verifies in this order: operation, challenge, expiry, device, signature, then the number
    /// (only after the signature, so only the real device can fail an operation with a wrong number).
    public static func verify(_ request: RedeemRequest, issued: IssuedOperation, deviceKeys: DevicePublicKeys?,
                              now: Date) throws(AnswerRejection) -> VerifiedAnswer {
        let envelope = issued.envelope
        guard request.operation == envelope.operation else {
            throw .operationMismatch(expected: envelope.operation, received: request.operation)
        }
        guard request.challenge.matches(envelope.challenge) else { throw .challengeMismatch }
        guard !envelope.isExpired(at: now) else { throw .expired(at: envelope.expiresAt) }
        if let expected = issued.deviceID, expected != request.deviceID {
            throw .wrongDevice(expected: expected, received: request.deviceID)
        }
        let verifyingKeys: DevicePublicKeys
        if envelope.type == .registration {
            guard let keys = request.keys else { throw .registrationKeysMissing }
            verifyingKeys = keys
        } else {
            guard let deviceKeys else { throw .unknownDevice(request.deviceID) }
            verifyingKeys = deviceKeys
        }
        let answer = request.answer(type: envelope.type, message: envelope.message)
        guard verifyingKeys.isValidSignature(request.signature, for: answer) else { throw .badSignature }
        if request.decision == .approve {
            switch (issued.correctNumber, request.number) {
            case (.some, .none): throw .numberMissing
            case (.some(let correct), .some(let number)) where number != correct: throw .wrongNumber(number)
            case (.none, .some): throw .numberNotExpected
            default: break
            }
        }
        return VerifiedAnswer(decision: request.decision, deviceID: request.deviceID,
                              enrolledKeys: envelope.type == .registration ? verifyingKeys : nil)
    }
}
