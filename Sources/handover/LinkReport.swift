import Foundation
import LinkCallbacks
import OutOfBand

/// What `handover link inspect` and `check` say about one link.
struct LinkReport {
    enum Verdict: String { case accept, reject }

    /// The kind reported for a link that carries `dispatchTokenResponse`.
    static let outOfBandKind = "out-of-band"

    let url: String
    let verdict: Verdict
    /// `ulc`, `x-callback` (``Link/Kind``) or `out-of-band`.
    let kind: String?
    let reason: String?
    /// Every field, in display order, decoded.
    let fields: [(name: String, value: String)]

    init(url: String, policy: CallbackPolicy) {
        self.url = url
        if Link.Kind(claimedBy: url) != .ulc, Self.carriesDispatchToken(url) {
            kind = Self.outOfBandKind
            (fields, reason) = Self.judge(outOfBand: url, policy: policy)
        } else {
            // Fields come from a plain parse, so a link the policy rejects still shows its parts.
            let parsed = try? Link(parsing: url)
            kind = (parsed?.kind ?? Link.Kind(claimedBy: url))?.rawValue
            fields = parsed.map(Self.fields(of:)) ?? []
            do {
                _ = try policy.evaluate(url)
                reason = nil
            } catch {
                reason = error.description
            }
        }
        verdict = reason == nil ? .accept : .reject
    }

    /// An out-of-band link: the policy judges its x-callback targets (or, for a universal link,
    /// the link as an action), and `OperationLink` reads its payload. Returns its fields and the
    /// reason it is refused, if it is.
    private static func judge(outOfBand url: String, policy: CallbackPolicy) -> (fields: [(name: String, value: String)], reason: String?) {
        let link = try? OperationLink(parsing: url)
        let fields = link.map(Self.fields(of:)) ?? []
        do {
            if case .xCallback? = try? Link(parsing: url) {
                _ = try policy.evaluate(url)
            } else {
                try policy.checkAction(url)
            }
        } catch {
            return (fields, error.description)
        }
        do {
            _ = try OperationLink(parsing: url)
        } catch {
            return (fields, error.description)
        }
        return (fields, nil)
    }

    /// Whether the query names `dispatchTokenResponse`, which marks an out-of-band link.
    private static func carriesDispatchToken(_ text: String) -> Bool {
        guard let url = try? RawURL(text, parameter: "link"), let items = try? url.queryParameters(parameter: "link") else { return false }
        return items.contains { $0.name == OperationLink.dispatchTokenParameter }
    }

    var text: String {
        var lines = ["kind:     \(kind ?? "unknown")"]
        for field in fields {
            lines.append("\(field.name):".padding(toLength: 10, withPad: " ", startingAt: 0) + field.value)
        }
        lines.append("verdict:  \(verdict.rawValue)")
        if let reason { lines.append("reason:   \(reason)") }
        return lines.joined(separator: "\n")
    }

    func jsonLine(compact: Bool) -> String {
        var object: [String: Any] = ["url": url, "verdict": verdict.rawValue, "kind": kind ?? NSNull(),
                                     "reason": reason ?? NSNull()]
        if !compact {
            object["fields"] = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if !compact { options.insert(.prettyPrinted) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func fields(of link: Link) -> [(name: String, value: String)] {
        switch link {
        case .universalLinkCallback(let ulc):
            var fields = [("action", ulc.action.absoluteString), ("success", ulc.success.absoluteString),
                          ("error", ulc.error.absoluteString)]
            if let timestamp = ulc.timestamp { fields.append(("ulc-ts", String(timestamp))) }
            if let signature = ulc.signature { fields.append(("ulc-sig", signature)) }
            return fields
        case .xCallback(let request):
            return fields(of: request)
        }
    }

    private static func fields(of link: OperationLink) -> [(name: String, value: String)] {
        var fields: [(String, String)]
        switch link.form {
        case .universalLink(let base):
            fields = [("form", "universal link"), ("base", base.absoluteString)]
        case .xCallback(let scheme, let action):
            fields = [("form", "x-callback-url"), ("scheme", scheme), ("action", action)]
            if let success = link.callbacks.success { fields.append(("x-success", success.absoluteString)) }
            if let error = link.callbacks.error { fields.append(("x-error", error.absoluteString)) }
            if let cancel = link.callbacks.cancel { fields.append(("x-cancel", cancel.absoluteString)) }
        }
        switch link.payload {
        case .dispatchToken(let envelope):
            fields.append(("payload", "\(link.payload.text.utf8.count) characters of base64url"))
            switch envelope.content {
            case .json(let token, let redeemURL):
                fields += [("envelope", "application/json, version \(envelope.version)"), ("token", token),
                           ("redeem", redeemURL.absoluteString)]
            case .jose(let jwe):
                fields += [("envelope", "application/jose, version \(envelope.version)"), ("jwe", "\(jwe.utf8.count) bytes")]
            }
        case .plain, .sealed:
            fields.append(("payload", link.payload.isSealed ? "v1, sealed" : "v1, plain"))
        }
        return fields
    }

    private static func fields(of request: XCallbackRequest) -> [(name: String, value: String)] {
        var fields = [("scheme", request.scheme), ("action", request.action)]
        if let source = request.source { fields.append(("x-source", source)) }
        if let success = request.success { fields.append(("x-success", success.absoluteString)) }
        if let error = request.error { fields.append(("x-error", error.absoluteString)) }
        if let cancel = request.cancel { fields.append(("x-cancel", cancel.absoluteString)) }
        for parameter in request.parameters { fields.append((parameter.name, parameter.value ?? "")) }
        return fields
    }
}
