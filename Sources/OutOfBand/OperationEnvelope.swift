import Foundation

/// What the server tells the phone about one out-of-band operation.
///
/// The envelope is JSON, then sealed to the device's key when the device is known, and carried
/// as an ``OperationPayload`` by push, QR code or link. It holds everything the phone needs to
/// show the request and to answer it — but never the correct number of a number match, which
/// only the initiating page shows.
///
/// ```json
/// {"callbacks":{"success":"https://shop.example/done"},"challenge":"q5Z…","expiresAt":1750000300,
///  "message":"Pay 25.00 EUR to Example Shop","operation":"op_7f3a…","redeemURL":"https://handover.example.com/oob/redeem",
///  "type":"transaction-confirmation"}
/// ```
public struct OperationEnvelope: Sendable, Hashable {
    /// The server's id for the operation: 1 to 128 characters from `A–Z a–z 0–9 - . _ ~`.
    public var operation: String
    public var type: OperationType
    /// Where the phone POSTs its signed answer.
    public var redeemURL: URL
    public var challenge: OperationChallenge
    /// After this instant the phone refuses to answer (whole seconds; finer parts are dropped).
    public var expiresAt: Date
    /// The text a transaction confirmation asks the user to approve; required for that type.
    /// The phone's signature covers its SHA-256, so the server knows the user saw this text.
    public var message: String?
    /// The numbers to choose from for number matching; the correct one is not among the envelope's fields.
    public var numberChoices: [Int]?
    /// Where to go after answering; link parameters override these.
    public var callbacks: CallbackTargets?

    /// The largest APNs payload: 4096 bytes (Apple's limit for every push type but VoIP).
    public static let maximumPushPayloadBytes = 4096
    /// The longest ``message``, in characters.
    public static let maximumMessageLength = 1000

    /// Makes an envelope, checking every field.
    public init(operation: String, type: OperationType, redeemURL: URL, challenge: OperationChallenge, expiresAt: Date,
                message: String? = nil, numberChoices: [Int]? = nil, callbacks: CallbackTargets? = nil) throws(OutOfBandError) {
        try Self.validateIdentifier(operation, field: "operation")
        _ = try URLRules.redeemURL(redeemURL.absoluteString)
        if let message { try Self.validateMessage(message) }
        if type == .transactionConfirmation, message == nil {
            throw OutOfBandError(field: "message", problem: .missing, detail: "a transaction confirmation has no message",
                                 accepted: "the text the user approves")
        }
        if let numberChoices { try NumberMatch.validate(numberChoices) }
        if let callbacks {
            for (field, url) in [("callbacks.success", callbacks.success), ("callbacks.error", callbacks.error), ("callbacks.cancel", callbacks.cancel)] {
                if let url { _ = try URLRules.callbackTarget(url.absoluteString, field: field) }
            }
        }
        self.operation = operation
        self.type = type
        self.redeemURL = redeemURL
        self.challenge = challenge
        self.expiresAt = Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down))
        self.message = message
        self.numberChoices = numberChoices
        self.callbacks = callbacks?.isEmpty == true ? nil : callbacks
    }

    /// Whether the envelope has expired at `now`.
    public func isExpired(at now: Date) -> Bool { now >= expiresAt }

    // MARK: JSON

    /// The envelope as JSON with sorted keys and unescaped slashes.
    public func json() -> Data {
        let wire = Wire(operation: operation, type: type.rawValue, redeemURL: redeemURL.absoluteString, challenge: challenge.text,
                        expiresAt: Int64(expiresAt.timeIntervalSince1970), message: message, numberChoices: numberChoices,
                        callbacks: callbacks.map {
                            WireCallbacks(success: $0.success?.absoluteString, error: $0.error?.absoluteString, cancel: $0.cancel?.absoluteString)
                        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(wire)) ?? Data()
    }

    /// Reads an envelope from JSON, refusing each wrong or missing field by name. Unknown fields
    /// are ignored, so a newer server can add some.
    public init(json: Data) throws(OutOfBandError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: json)
        } catch {
            throw Self.decodingFailure(error)
        }
        func required<T>(_ value: T?, _ field: String, _ accepted: String) throws(OutOfBandError) -> T {
            guard let value else {
                throw OutOfBandError(field: field, problem: .missing, detail: "the envelope has no \(field)", accepted: accepted)
            }
            return value
        }
        let typeText = try required(wire.type, "type", OperationType.acceptedText)
        guard let type = OperationType(rawValue: typeText) else {
            throw OutOfBandError(field: "type", problem: .invalidValue, detail: "'\(OutOfBandError.excerpt(typeText))' is not an operation type",
                                 accepted: OperationType.acceptedText)
        }
        let redeemURL = try URLRules.redeemURL(try required(wire.redeemURL, "redeemURL", "an https URL"))
        let challenge = try OperationChallenge(text: try required(wire.challenge, "challenge", "base64url of 32 bytes"))
        let expiresAt = try required(wire.expiresAt, "expiresAt", "seconds since 1970 as an integer")
        var callbacks: CallbackTargets?
        if let wireCallbacks = wire.callbacks {
            var targets = CallbackTargets()
            if let text = wireCallbacks.success { targets.success = try URLRules.callbackTarget(text, field: "callbacks.success") }
            if let text = wireCallbacks.error { targets.error = try URLRules.callbackTarget(text, field: "callbacks.error") }
            if let text = wireCallbacks.cancel { targets.cancel = try URLRules.callbackTarget(text, field: "callbacks.cancel") }
            callbacks = targets
        }
        try self.init(operation: try required(wire.operation, "operation", "the operation's id"), type: type, redeemURL: redeemURL,
                      challenge: challenge, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)),
                      message: wire.message, numberChoices: wire.numberChoices, callbacks: callbacks)
    }

    struct Wire: Codable {
        var operation: String?
        var type: String?
        var redeemURL: String?
        var challenge: String?
        var expiresAt: Int64?
        var message: String?
        var numberChoices: [Int]?
        var callbacks: WireCallbacks?
    }

    struct WireCallbacks: Codable {
        var success: String?
        var error: String?
        var cancel: String?
    }

    private static func decodingFailure(_ error: Error) -> OutOfBandError {
        let accepted = "a JSON object with operation, type, redeemURL, challenge and expiresAt"
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "envelope" : text
        }
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            return OutOfBandError(field: path(context), problem: .invalidEnvelope, detail: "the value is not of type \(type)", accepted: accepted)
        case DecodingError.valueNotFound(_, let context):
            return OutOfBandError(field: path(context), problem: .invalidEnvelope, detail: "the value is null", accepted: accepted)
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            return OutOfBandError(field: path(context), problem: .invalidEnvelope, detail: "the value cannot be read", accepted: accepted)
        default:
            return OutOfBandError(field: "envelope", problem: .invalidEnvelope, detail: "the payload is not a JSON object", accepted: accepted)
        }
    }

    // MARK: Field rules

    /// An operation or device id: 1 to 128 characters from `A–Z a–z 0–9 - . _ ~` (they appear
    /// in signed text, one per line, and in URLs, so nothing else is allowed).
    static func validateIdentifier(_ text: String, field: String) throws(OutOfBandError) {
        let accepted = "1 to 128 characters from A–Z a–z 0–9 - . _ ~"
        guard !text.isEmpty, text.utf8.count <= 128 else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "it is \(text.utf8.count) characters long", accepted: accepted)
        }
        guard text.utf8.allSatisfy({ byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "'\(OutOfBandError.excerpt(text))' has a character outside the set", accepted: accepted)
        }
    }

    public static func validateMessage(_ message: String) throws(OutOfBandError) {
        let accepted = "1 to \(maximumMessageLength) characters; line breaks allowed, other control characters not"
        guard !message.isEmpty, message.count <= maximumMessageLength else {
            throw OutOfBandError(field: "message", problem: .invalidValue, detail: "it is \(message.count) characters long", accepted: accepted)
        }
        // Bidirectional overrides could make the shown text differ from the signed text.
        if message.unicodeScalars.contains(where: { scalar in
            scalar != "\n" && scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value)
        }) {
            throw OutOfBandError(field: "message", problem: .invalidValue, detail: "it contains a control or text-direction character",
                                 accepted: accepted)
        }
    }
}
