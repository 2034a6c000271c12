import Foundation
import PropertyBased
import Testing
@testable import LinkCallbacks

/// Properties that must hold for every input, not just the examples.
@Suite(.timeLimit(.minutes(5))) struct LinkPropertyTests {
    static let label = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyz0123456789")).compactMap { $0 }.string(of: 1...12)
    /// Characters a path or query may hold as written, including sub-delims and encoded bytes.
    static let uriText = Gen<String?>.element(of: ["a", "Z", "0", "-", ".", "_", "~", "!", "$", "'", "(", ")", "*", "+", ",", ";", "=",
                                                   ":", "@", "/", "?", "%20", "%2F", "%25", "%26", "%3D", "%C3%A9", "&"])
        .compactMap { $0 }.array(of: 0...16).map { $0.joined() }
    static let anyText = Gen<Character?>.element(of: Array("ab%&=?#/:\\@ \u{0}\r\n+*.-_~[]\"<>é\u{0430}日xn--0123456789ABCDEF")).compactMap { $0 }
        .string(of: 0...80)

    static func host(_ labels: [String]) -> String { labels.joined(separator: ".") + ".com" }

    @Test func parseOfBuildIsIdentityForEveryULC() async {
        await propertyCheck(count: 300, input: Self.label.array(of: 1...3), Self.uriText, Self.uriText, Self.uriText, Self.uriText) {
            labels, path, actionQuery, callbackPath, callbackQuery in
            let host = Self.host(labels)
            let safePath = "/" + path.replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "&", with: "")
            let action = "https://\(host)\(safePath)" + (actionQuery.isEmpty ? "" : "?force=1&" + actionQuery.replacingOccurrences(of: "ulc", with: "u"))
            let success = "https://cb.\(host)/\(callbackPath)?\(callbackQuery)#\(callbackQuery)"
            let error = "https://cb.\(host)/e?\(callbackPath)"
            guard let ulc = try? UniversalLinkCallback(actionText: action, successText: success, errorText: error) else {
                return  // not a structurally valid ULC (e.g. a '#' in the generated action); nothing to round-trip
            }
            #expect((try? UniversalLinkCallback(parsing: ulc.text)) == ulc)
            #expect((try? Link(parsing: ulc.text)) == .universalLinkCallback(ulc))
            #expect(ulc.success.absoluteString == success)
        }
    }

    /// A server builds its links from a checked action (``UniversalLinkCallback/Action``); the text
    /// must be the one the checking initializer writes, for every action and every callback a
    /// server writes (an ASCII host, text Foundation reads unchanged; capitals and ports included).
    @Test func actionLinkTextIsTheCheckedULCsText() async {
        let hostLabel = Gen<Character?>.element(of: Array("abcXYZ019-")).compactMap { $0 }.string(of: 1...10)
        let nonce = Gen<Character?>.element(of: Array("abcXYZ019-_")).compactMap { $0 }.string(of: 1...43)
        var compared = 0
        await propertyCheck(count: 300, input: hostLabel.array(of: 1...3), Self.uriText, Self.uriText, Gen<Int>.int(in: 1...65535), nonce) {
            labels, path, actionQuery, port, nonce in
            let host = Self.host(labels)
            let action = "https://\(host)/\(path.replacingOccurrences(of: "?", with: ""))"
                + (actionQuery.isEmpty ? "" : "?" + actionQuery.replacingOccurrences(of: "ulc", with: "u"))
            let base = "http://cb.\(host):\(port)/ulc/cb/\(UUID().uuidString.lowercased())"
            let success = "\(base)/success?n=\(nonce)"
            let error = "\(base)/error?n=\(nonce)"
            let checked = try? UniversalLinkCallback.Action(action)
            guard let ulc = try? UniversalLinkCallback(actionText: action, successText: success, errorText: error) else {
                #expect(checked == nil, "only the action can be refused here: \(action)")
                return
            }
            compared += 1
            #expect(checked?.url == ulc.action)
            #expect(checked?.linkText(success: success, error: error) == ulc.text)
        }
        #expect(compared > 150)
    }

    @Test func hexIsTwoLowerCaseDigitsPerByte() async {
        await propertyCheck(count: 300, input: Gen<UInt8>.value(in: 0...255).array(of: 0...40)) { bytes in
            #expect(Hex.lowercase(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test func mostGeneratedULCsAreValidSoTheRoundTripIsNotVacuous() async {
        var valid = 0
        await propertyCheck(count: 200, input: Self.label.array(of: 1...3), Self.uriText) { labels, text in
            if (try? UniversalLinkCallback(actionText: "https://\(Self.host(labels))/logout", successText: "https://a.com/\(text)",
                                           errorText: "https://a.com/e?\(text)")) != nil { valid += 1 }
        }
        #expect(valid > 150)
    }

    @Test func parseOfBuildIsIdentityForEveryXCallbackRequest() async {
        await propertyCheck(count: 200, input: Self.label, Self.uriText, Self.anyText, Self.anyText) { scheme, target, name, value in
            guard let success = URL(string: "https://a.com/\(target)"), success.absoluteString == "https://a.com/\(target)" else { return }
            let parameters = [QueryParameter(name: "p" + name, value: value)]
            guard let request = try? XCallbackRequest(scheme: "s" + scheme, action: "act", source: value, success: success,
                                                      parameters: parameters) else { return }
            #expect((try? XCallbackRequest(parsing: request.text)) == request)
        }
    }

    @Test func percentDecodingUndoesUnreservedEncodingForAnyString() async {
        await propertyCheck(count: 300, input: Self.anyText) { text in
            #expect(PercentEncoding.decode(PercentEncoding.encodeUnreserved(text)) == text)
        }
    }

    @Test func base64URLDecodingUndoesEncodingForAnyBytes() async {
        await propertyCheck(count: 300, input: Gen<UInt8>.value(in: 0...255).array(of: 0...64)) { bytes in
            #expect((try? Base64URL.decode(Base64URL.encode(bytes))) == Data(bytes))
        }
    }

    @Test func punycodeDecodingUndoesEncodingForAnyLabel() async {
        let scalar = Gen<Character?>.element(of: Array("abcxyz019-éüßж日本語한국")).compactMap { $0 }.string(of: 1...20)
        await propertyCheck(count: 300, input: scalar) { label in
            let scalars = Array(label.unicodeScalars)
            guard let encoded = Punycode.encode(scalars) else { Issue.record("no encoding for \(label)"); return }
            #expect(Punycode.decode(encoded) == scalars)
        }
    }

    @Test func parsingAndJudgingNeverCrashOnArbitraryStrings() async {
        await propertyCheck(count: 1000, input: Self.anyText) { text in
            for candidate in [text, "https://a.com/x?ulc-success=" + text, "https://a.com/x?ulc-success=https%3A%2F%2Fb.com&ulc-error=" + text,
                              "s://x-callback-url/a?x-success=" + text, "https://a.com/?dispatchTokenResponse=" + text] {
                _ = try? Link(parsing: candidate)
                if let accepted = try? CallbackPolicy.default.evaluate(candidate) {
                    // What the policy accepts, it accepts again in its rebuilt form.
                    #expect((try? CallbackPolicy.default.evaluate(accepted.text)) != nil, "\(candidate)")
                }
            }
        }
    }

    @Test func parsingNeverCrashesOnArbitraryUnicode() async {
        let unicode = Gen.unicodeScalar(in: "\u{0}"..."\u{2FFF}").array(of: 0...60)
            .map { String(String.UnicodeScalarView($0)) }
        await propertyCheck(count: 500, input: unicode) { text in
            _ = try? CallbackPolicy.default.evaluate(text)
            _ = try? CallbackPolicy.default.evaluate("https://a.com/x?ulc-success=https%3A%2F%2F" + text + "&ulc-error=https%3A%2F%2Fb.com")
            _ = try? HostName(text, parameter: "host")
            _ = Punycode.decode(text)
        }
    }
}
