import Foundation

/// The APNs payload that carries an operation: `{"aps":{…},"op":"<payload text>"}`.
///
/// The alert is generic ("Sign-in request") on purpose: the transaction's text travels sealed in
/// `op`, not in the lock-screen notification.
///
/// ```swift
/// let push = OperationPush(payload: try .sealed(envelope, to: deviceKeys), title: "Approve sign-in?")
/// let body = try push.json()      // ≤ 4096 bytes, or PushPayloadTooLarge naming the size
/// ```
public struct OperationPush: Sendable, Hashable {
    /// The key of the payload text in the push's top-level dictionary (and in iOS's `userInfo`).
    public static let payloadKey = "op"

    public var payload: OperationPayload
    public var title: String?
    public var body: String?
    /// `aps.sound`; `nil` for a silent alert.
    public var sound: String?
    /// `aps.category`, for notification actions.
    public var category: String?
    /// `aps.mutable-content`: lets a notification service extension open the payload first.
    public var mutableContent: Bool
    /// `aps.interruption-level`: `time-sensitive` by default, since the request expires.
    public var interruptionLevel: String?

    public init(payload: OperationPayload, title: String? = nil, body: String? = nil, sound: String? = "default",
                category: String? = nil, mutableContent: Bool = false, interruptionLevel: String? = "time-sensitive") {
        self.payload = payload
        self.title = title
        self.body = body
        self.sound = sound
        self.category = category
        self.mutableContent = mutableContent
        self.interruptionLevel = interruptionLevel
    }

    /// The JSON body for APNs, checked against ``OperationEnvelope/maximumPushPayloadBytes``.
    public func json() throws(PushPayloadTooLarge) -> Data {
        struct Alert: Encodable { var title: String?; var body: String? }
        struct APS: Encodable {
            var alert: Alert?
            var sound: String?
            var category: String?
            var mutableContent: Int?
            var interruptionLevel: String?
            enum CodingKeys: String, CodingKey {
                case alert, sound, category, mutableContent = "mutable-content", interruptionLevel = "interruption-level"
            }
        }
        struct Body: Encodable { var aps: APS; var op: String }
        let alert = title == nil && body == nil ? nil : Alert(title: title, body: body)
        let value = Body(aps: APS(alert: alert, sound: sound, category: category, mutableContent: mutableContent ? 1 : nil,
                                  interruptionLevel: interruptionLevel),
                         op: payload.text)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data()
        guard data.count <= OperationEnvelope.maximumPushPayloadBytes else {
            throw PushPayloadTooLarge(bytes: data.count, limit: OperationEnvelope.maximumPushPayloadBytes)
        }
        return data
    }
}

/// An APNs payload over Apple's limit.
public struct PushPayloadTooLarge: Error, Equatable, Sendable, CustomStringConvertible {
    /// The payload's size in bytes.
    public var bytes: Int
    /// The limit, 4096.
    public var limit: Int

    public var description: String {
        "the APNs payload is \(bytes) bytes, \(bytes - limit) more than APNs's limit of \(limit); shorten the message or send a QR code or link instead"
    }
}
