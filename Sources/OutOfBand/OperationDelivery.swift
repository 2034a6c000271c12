import Foundation

/// How an operation reached the phone, and what it carried.
public struct OperationDelivery: Sendable, Hashable {
    public enum Channel: String, Sendable, Hashable {
        case link
        case qrCode = "qr-code"
        case push
    }

    public var channel: Channel
    public var payload: OperationPayload
    /// The link's x-callback targets; empty for other channels.
    public var callbacks: CallbackTargets
    /// The link, when it came as one (or a QR code held one).
    public var link: OperationLink?

    public init(channel: Channel, payload: OperationPayload, callbacks: CallbackTargets = CallbackTargets(), link: OperationLink? = nil) {
        self.channel = channel
        self.payload = payload
        self.callbacks = callbacks
        self.link = link
    }

    /// From a link the app was opened with.
    public init(link url: URL) throws(OutOfBandError) {
        let link = try OperationLink(url: url)
        self.init(channel: .link, payload: link.payload, callbacks: link.callbacks, link: link)
    }

    /// From a scanned QR code: a link of either form, or a bare payload (`v1.…`). Surrounding
    /// white space, which some scanners add, is ignored.
    public init(qrText: String) throws(OutOfBandError) {
        let text = qrText.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("v"), !text.contains(":") {
            self.init(channel: .qrCode, payload: try OperationPayload(text: text, field: "qr"))
        } else {
            let link = try OperationLink(parsing: text)
            self.init(channel: .qrCode, payload: link.payload, callbacks: link.callbacks, link: link)
        }
    }

    /// From a push notification's `userInfo`: the string under `"op"`.
    public init(pushUserInfo userInfo: [AnyHashable: Any]) throws(OutOfBandError) {
        let key = OperationPush.payloadKey
        guard let value = userInfo[key] else {
            throw OutOfBandError(field: key, problem: .missing, detail: "the notification has no '\(key)' entry",
                                 accepted: #"a push {"aps":{…},"op":"v1.…"}"#)
        }
        guard let text = value as? String else {
            throw OutOfBandError(field: key, problem: .invalidValue, detail: "'\(key)' is a \(type(of: value)), not a string",
                                 accepted: "the payload text as a string")
        }
        self.init(channel: .push, payload: try OperationPayload(text: text, field: key))
    }
}
