import Foundation
import LinkCallbacks

/// What `handover link inspect` and `check` say about one link.
struct LinkReport {
    enum Verdict: String { case accept, reject }

    let url: String
    let verdict: Verdict
    let kind: Link.Kind?
    let reason: String?
    /// Every field, in display order, decoded.
    let fields: [(name: String, value: String)]

    init(url: String, policy: CallbackPolicy) {
        self.url = url
        // Fields come from a plain parse, so a link the policy rejects still shows its parts.
        let parsed = try? Link(parsing: url)
        kind = parsed?.kind ?? Link.Kind(claimedBy: url)
        fields = parsed.map(Self.fields(of:)) ?? []
        do {
            _ = try policy.evaluate(url)
            verdict = .accept
            reason = nil
        } catch {
            verdict = .reject
            reason = error.description
        }
    }

    var text: String {
        var lines = ["kind:     \(kind?.rawValue ?? "unknown")"]
        for field in fields {
            lines.append("\(field.name):".padding(toLength: 10, withPad: " ", startingAt: 0) + field.value)
        }
        lines.append("verdict:  \(verdict.rawValue)")
        if let reason { lines.append("reason:   \(reason)") }
        return lines.joined(separator: "\n")
    }

    func jsonLine(compact: Bool) -> String {
        var object: [String: Any] = ["url": url, "verdict": verdict.rawValue, "kind": kind?.rawValue ?? NSNull(),
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
        case .outOfBand(let link):
            var fields: [(String, String)]
            switch link.form {
            case .universalLink(let base): fields = [("form", "universal link"), ("base", base.absoluteString)]
            case .xCallback(let request): fields = [("form", "x-callback-url")] + Self.fields(of: request)
            }
            fields.append(("payload", "\(link.payload.count) bytes"))
            if let envelope = try? link.envelope() {
                switch envelope.content {
                case .json(let token, let redeemURL):
                    fields += [("envelope", "application/json, version \(envelope.version)"), ("token", token),
                               ("redeem", redeemURL.absoluteString)]
                case .jose(let jwe):
                    fields += [("envelope", "application/jose, version \(envelope.version)"), ("jwe", "\(jwe.utf8.count) bytes")]
                }
            }
            return fields
        }
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
