import Foundation
import PropertyBased
import Testing
@testable import OutOfBand

/// Properties of the parsers for every input, not just the examples.
@Suite(.timeLimit(.minutes(5))) struct ParserPropertyTests {
    static let identifier = Gen<Character?>.element(of: Array("abcXYZ019-._~")).compactMap { $0 }.string(of: 1...40)
    static let label = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyz0123456789")).compactMap { $0 }.string(of: 1...10)
    static let messageText = Gen<Character?>.element(of: Array("Pay 25,00 € to Ünïcødé Shop\n日本語🧾\"\\/&=#%?")).compactMap { $0 }.string(of: 1...200)
    static let uriText = Gen<String?>.element(of: ["a", "Z", "0", "-", ".", "_", "~", "!", "$", "'", "(", ")", "*", "+", ",", ";", "=",
                                                   ":", "@", "/", "?", "%20", "%2F", "%25", "%26", "%3D", "%C3%A9", "&", "#"])
        .compactMap { $0 }.array(of: 0...12).map { $0.joined() }
    static let anyText = Gen<Character?>.element(of: Array("ab%&=?#/:\\@ \u{0}\r\n+*.-_~[]\"<>é\u{202E}日v1pex-callback-url.https0123456789ABCDEF"))
        .compactMap { $0 }.string(of: 0...120)

    static func envelope(_ id: String, _ type: OperationType, _ message: String, _ numbers: Bool, _ target: String, _ seconds: Int) -> OperationEnvelope? {
        let success = URL(string: "https://cb.example/\(target)")
        return try? OperationEnvelope(
            operation: id, type: type, redeemURL: URL(string: "https://handover.example.com/oob/\(id)")!,
            challenge: .random(), expiresAt: Date(timeIntervalSince1970: TimeInterval(seconds)),
            message: type == .transactionConfirmation ? message : nil, numberChoices: numbers ? NumberMatch.random().choices : nil,
            callbacks: success.map { CallbackTargets(success: $0) })
    }

    @Test func everyEnvelopeSurvivesSealingLinkingAndParsing() async throws {
        let device = DeviceKeys.generate()
        let built = Mutex(0)
        await propertyCheck(count: 150, input: Self.identifier, Gen.element(of: OperationType.allCases).compactMap { $0 }, Self.messageText,
                            Gen.bool, Self.uriText, Gen.int(in: 0...4_000_000_000), Self.label) { id, type, message, numbers, target, seconds, scheme in
            guard let envelope = Self.envelope(id, type, message, numbers, target, seconds) else { return }
            built.withLock { $0 += 1 }
            let sealed = try OperationPayload.sealed(envelope, to: device.publicKeys)
            for payload in [sealed, OperationPayload.plain(envelope)] {
                let universal = OperationLink.universalLink(base: URL(string: "https://\(scheme).example/oob")!, payload: payload)
                let callback = OperationLink.xCallback(scheme: "s" + scheme, payload: payload, callbacks: CallbackTargets(
                    success: URL(string: "https://cb.example/\(target)"), cancel: URL(string: "app\(scheme)://x-callback-url/c?\(target)")))
                for link in [universal, callback] {
                    let parsed = try OperationLink(parsing: link.text)
                    #expect(parsed == link)
                    #expect(try parsed.payload.open(with: device) == envelope)
                    #expect(try OperationDelivery(qrText: link.text).payload == payload)
                }
                #expect(try OperationDelivery(pushUserInfo: ["op": payload.text]).payload.open(with: device) == envelope)
            }
        }
        #expect(built.withLock { $0 } > 100)
    }

    @Test func garbageNeverCrashesAndEveryRefusalIsTyped() async {
        await propertyCheck(count: 600, input: Self.anyText) { text in
            for parse in [{ _ = try OperationLink(parsing: text) }, { _ = try OperationDelivery(qrText: text) },
                          { _ = try OperationLink(parsing: "https://a.example/oob?dispatchTokenResponse=" + text) },
                          { _ = try DispatchTokenEnvelope(json: Data(text.utf8)) },
                          { _ = try OperationPayload(text: text).open(with: nil) }, { _ = try OperationDelivery(pushUserInfo: ["op": text]) },
                          { _ = try OperationEnvelope(json: Data(text.utf8)) }, { _ = try RedeemRequest(json: Data(text.utf8)) }] as [() throws -> Void] {
                do { try parse() } catch let error as OutOfBandError {
                    #expect(!error.field.isEmpty && !error.detail.isEmpty && !error.accepted.isEmpty)
                } catch {
                    Issue.record("untyped error \(error) for \(text.debugDescription)")
                }
            }
        }
    }

    @Test func mutatedValidLinksNeverCrash() async throws {
        let device = DeviceKeys.generate()
        let envelope = try Fixture.envelope(callbacks: CallbackTargets(success: URL(string: "https://cb.example/ok")!))
        let link = OperationLink.xCallback(scheme: "handover", payload: try .sealed(envelope, to: device.publicKeys),
                                           callbacks: CallbackTargets(error: URL(string: "https://cb.example/e")!)).text
        let characters = Array(link)
        await propertyCheck(count: 500, input: Gen.int(in: 0...(characters.count - 1)), Gen<Character?>.element(of: Array("a.%=&#?/:_-0\u{0}é")).compactMap { $0 },
                            Gen.int(in: 0...3)) { index, replacement, mode in
            var mutated = characters
            switch mode {
            case 0: mutated[index] = replacement
            case 1: mutated.remove(at: index)
            case 2: mutated.insert(replacement, at: index)
            default: mutated = Array(mutated[..<index])
            }
            do {
                let parsed = try OperationLink(parsing: String(mutated))
                _ = try parsed.payload.open(with: device)
            } catch let error as OutOfBandError {
                #expect(!error.detail.isEmpty)
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }

    @Test func base64URLRoundTripsAnyBytes() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...80)) { bytes in
            #expect((try? Base64URL.decode(Base64URL.encode(bytes), field: "x")) == Data(bytes))
        }
    }

    /// The source documents' envelope survives writing and reading in both forms, whatever the
    /// token, the redeem URL, the version, the base's own query and the targets.
    @Test func everyDispatchTokenEnvelopeSurvivesLinkingAndParsing() async throws {
        await propertyCheck(count: 200, input: Self.messageText, Self.uriText, Self.identifier, Self.label, Gen.bool, Self.uriText) {
            token, path, version, scheme, jose, query in
            guard let redeem = URL(string: "https://\(scheme).example/\(path)"), redeem.absoluteString == "https://\(scheme).example/\(path)" else { return }
            let envelope = DispatchTokenEnvelope(content: jose ? .jose("h.\(scheme).i.c.t") : .json(token: token, redeemURL: redeem), version: version)
            let cleanQuery = query.replacingOccurrences(of: "#", with: "").split(separator: "&")
                .filter { !$0.isEmpty && !$0.hasPrefix("p=") && $0 != "p" && !$0.hasPrefix("dispatchTokenResponse") }.joined(separator: "&")
            guard let base = URL(string: "https://\(scheme).example/oob" + (cleanQuery.isEmpty ? "" : "?" + cleanQuery)),
                  (try? OperationLink(parsing: base.absoluteString + "#p=v1.p.e30")) != nil else { return }
            let universal = OperationLink.universalLink(base: base, payload: .dispatchToken(envelope))
            let callback = OperationLink.xCallback(scheme: "s" + scheme, action: "register", payload: .dispatchToken(envelope),
                                                   callbacks: CallbackTargets(success: redeem, cancel: URL(string: "app\(scheme)://x-callback-url/c")))
            for link in [universal, callback] {
                let parsed = try OperationLink(parsing: link.text)
                #expect(parsed == link, "\(link.text)")
                #expect(parsed.payload == .dispatchToken(envelope))
                #expect(try OperationDelivery(qrText: link.text).payload == .dispatchToken(envelope))
            }
        }
    }

    /// Whatever `dispatchTokenResponse` holds, reading it either yields a payload that writes
    /// back to a link read as the same payload, or a typed refusal naming a field.
    @Test func anyDispatchTokenResponseIsReadOrRefusedWithAField() async {
        await propertyCheck(count: 400, input: Self.anyText) { text in
            let payload: OperationPayload
            do throws(OutOfBandError) { payload = try OperationPayload(dispatchTokenResponse: text) } catch {
                #expect(!error.field.isEmpty && !error.detail.isEmpty && !error.accepted.isEmpty)
                return
            }
            let link = OperationLink.universalLink(base: URL(string: "https://a.example/oob")!, payload: payload)
            #expect((try? OperationLink(parsing: link.text))?.payload == payload, "\(text.debugDescription)")
        }
    }
}

/// A lock for counters the property closures update.
final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
