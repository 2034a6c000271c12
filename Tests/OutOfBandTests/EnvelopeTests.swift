import Foundation
import Testing
@testable import OutOfBand

@Suite(.timeLimit(.minutes(5))) struct EnvelopeTests {
    @Test func jsonRoundTripKeepsEveryField() throws {
        let callbacks = CallbackTargets(success: URL(string: "https://shop.example/done?a=1")!, error: URL(string: "shop://x-callback-url/err")!,
                                        cancel: nil)
        let envelope = try Fixture.envelope(type: .transactionConfirmation, message: "Pay 25.00 EUR\nto Example Shop", callbacks: callbacks)
        let decoded = try OperationEnvelope(json: envelope.json())
        #expect(decoded == envelope)
        let text = String(decoding: envelope.json(), as: UTF8.self)
        #expect(text.contains(#""redeemURL":"https://handover.example.com/oob/redeem""#))
        #expect(text.contains(#""expiresAt":1750000300"#))
        #expect(text.contains(#""type":"transaction-confirmation""#))
    }

    @Test func fractionalExpiryIsDroppedSoTheRoundTripIsExact() throws {
        let envelope = try OperationEnvelope(operation: "a", type: .authentication, redeemURL: Fixture.redeemURL, challenge: Fixture.challenge,
                                             expiresAt: Date(timeIntervalSince1970: 1_750_000_300.75))
        #expect(envelope.expiresAt == Fixture.expiresAt)
        #expect(try OperationEnvelope(json: envelope.json()) == envelope)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let json = try Fixture.editedJSON { $0["futureField"] = ["x": 1] }
        #expect(try OperationEnvelope(json: json) == Fixture.envelope())
    }

    @Test func eachMissingFieldIsNamed() throws {
        for field in ["operation", "type", "redeemURL", "challenge", "expiresAt"] {
            let json = try Fixture.editedJSON { $0.removeValue(forKey: field) }
            expectError(field, .missing) { _ = try OperationEnvelope(json: json) }
        }
    }

    @Test func wrongValuesAreNamedWithWhatIsAccepted() throws {
        expectError("type", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["type"] = "login" }) }
        expectError("type", .invalidEnvelope) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["type"] = 7 }) }
        expectError("expiresAt", .invalidEnvelope) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["expiresAt"] = "soon" }) }
        expectError("challenge", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["challenge"] = "AAAA" }) }
        expectError("challenge", .invalidBase64URL) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["challenge"] = "a+b/" }) }
        expectError("redeemURL", .invalidValue) {
            _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["redeemURL"] = "http://handover.example.com/r" })
        }
        expectError("redeemURL", .invalidValue) {
            _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["redeemURL"] = "https://user@handover.example.com/r" })
        }
        expectError("operation", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["operation"] = "a b" }) }
        expectError("operation", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["operation"] = "" }) }
        expectError("numberChoices", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["numberChoices"] = [5, 50, 60] }) }
        expectError("numberChoices", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["numberChoices"] = [50, 50] }) }
        expectError("numberChoices", .invalidValue) { _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["numberChoices"] = [50] }) }
        expectError("callbacks.success", .invalidValue) {
            _ = try OperationEnvelope(json: try Fixture.editedJSON { $0["callbacks"] = ["success": "javascript://x/%0Aalert(1)"] })
        }
        expectError("envelope", .invalidEnvelope) { _ = try OperationEnvelope(json: Data("[1,2]".utf8)) }
        expectError("envelope", .invalidEnvelope) { _ = try OperationEnvelope(json: Data("not json".utf8)) }
    }

    @Test func loopbackHTTPRedeemURLsAreAllowedForDevelopment() throws {
        for text in ["http://127.0.0.1:8080/oob/redeem", "http://localhost/r", "http://[::1]:9/r"] {
            let json = try Fixture.editedJSON { $0["redeemURL"] = text }
            #expect(try OperationEnvelope(json: json).redeemURL.absoluteString == text)
        }
    }

    @Test func transactionConfirmationNeedsAMessage() {
        expectError("message", .missing) { _ = try Fixture.envelope(type: .transactionConfirmation, message: nil) }
    }

    @Test func messagesRefuseControlAndTextDirectionCharacters() {
        expectError("message", .invalidValue) { _ = try Fixture.envelope(type: .transactionConfirmation, message: "Pay \u{202E}0052 EUR") }
        expectError("message", .invalidValue) { _ = try Fixture.envelope(type: .transactionConfirmation, message: "a\u{7}b") }
        expectError("message", .invalidValue) { _ = try Fixture.envelope(type: .transactionConfirmation, message: "") }
        expectError("message", .invalidValue) {
            _ = try Fixture.envelope(type: .transactionConfirmation, message: String(repeating: "x", count: OperationEnvelope.maximumMessageLength + 1))
        }
    }

    @Test func expiryIsInclusiveOfTheDeadline() throws {
        let envelope = try Fixture.envelope()
        #expect(!envelope.isExpired(at: Fixture.expiresAt.addingTimeInterval(-1)))
        #expect(envelope.isExpired(at: Fixture.expiresAt))
    }

    @Test func numberMatchGivesDistinctTwoDigitChoicesWithTheCorrectOneAmongThem() throws {
        for _ in 0..<200 {
            let match = NumberMatch.random()
            #expect(match.choices.count == 3)
            #expect(Set(match.choices).count == 3)
            #expect(match.choices.allSatisfy { NumberMatch.range.contains($0) })
            #expect(match.choices.contains(match.correct))
            try NumberMatch.validate(match.choices)
        }
        #expect(NumberMatch.random(count: 50).choices.count == NumberMatch.choiceCount.upperBound)
    }

    @Test func challengesAreFreshAndCompareInFull() throws {
        let a = OperationChallenge.random(), b = OperationChallenge.random()
        #expect(a != b)
        #expect(a.text.count == 43)
        #expect(try OperationChallenge(text: a.text) == a)
        #expect(a.matches(try OperationChallenge(text: a.text)))
        #expect(!a.matches(b))
    }
}
