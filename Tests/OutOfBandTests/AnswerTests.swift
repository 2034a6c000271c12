import Crypto
import Foundation
import Testing
@testable import OutOfBand

@Suite(.timeLimit(.minutes(5))) struct AnswerTests {
    let device = DeviceKeys.generate()

    func request(_ envelope: OperationEnvelope, decision: OperationDecision = .approve, number: Int? = 81,
                 deviceID: String = "dev_1", keys: DeviceKeys? = nil) throws -> RedeemRequest {
        let signer = keys ?? device
        let answer = OperationAnswer(envelope: envelope, deviceID: deviceID, decision: decision, number: number, keys: signer.publicKeys)
        return try RedeemRequest(signing: answer, with: signer)
    }

    func verify(_ request: RedeemRequest, _ issued: IssuedOperation, keys: DevicePublicKeys?? = .none,
                now: Date = Fixture.now) throws(AnswerRejection) -> VerifiedAnswer {
        try AnswerVerifier.verify(request, issued: issued, deviceKeys: keys ?? device.publicKeys, now: now)
    }

    @Test func canonicalBytesAreTheDocumentedLines() throws {
        let envelope = try Fixture.envelope(type: .transactionConfirmation, message: "Pay", numbers: nil)
        let answer = OperationAnswer(envelope: envelope, deviceID: "dev_1", decision: .approve, number: nil, keys: nil)
        let text = String(decoding: answer.canonicalBytes, as: UTF8.self)
        #expect(text == """
            handover-oob-answer/v1
            device:dev_1
            operation:op_123
            type:transaction-confirmation
            challenge:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8
            message-sha256:\(Base64URL.encode(SHA256.hash(data: Data("Pay".utf8))))
            decision:approve
            number:
            keys:
            """)
    }

    @Test func approvalWithTheRightNumberVerifies() throws {
        let envelope = try Fixture.envelope()
        let issued = IssuedOperation(envelope: envelope, correctNumber: 81, deviceID: "dev_1")
        let verified = try verify(try request(envelope), issued)
        #expect(verified.decision == .approve)
        #expect(verified.event == .redeem(.approve))
        #expect(verified.enrolledKeys == nil)
    }

    @Test func theRedeemBodyRoundTripsThroughJSON() throws {
        let original = try request(try Fixture.envelope())
        let body = original.json()
        let text = String(decoding: body, as: UTF8.self)
        for key in ["operation", "challenge", "decision", "number", "signature", "deviceID"] { #expect(text.contains("\"\(key)\"")) }
        #expect(try RedeemRequest(json: body) == original)
    }

    @Test func everyRejectionIsTyped() throws {
        let envelope = try Fixture.envelope()
        let issued = IssuedOperation(envelope: envelope, correctNumber: 81, deviceID: "dev_1")
        func rejection(_ body: () throws -> Void) -> AnswerRejection? {
            do { try body(); return nil } catch let error as AnswerRejection { return error } catch { return nil }
        }
        var other = try request(envelope)
        other.operation = "op_999"
        #expect(rejection { _ = try verify(other, issued) } == .operationMismatch(expected: "op_123", received: "op_999"))
        var replayed = try request(envelope)
        replayed.challenge = .random()
        #expect(rejection { _ = try verify(replayed, issued) } == .challengeMismatch)
        #expect(rejection { _ = try verify(try request(envelope), issued, now: Fixture.expiresAt) } == .expired(at: Fixture.expiresAt))
        #expect(rejection { _ = try verify(try request(envelope, deviceID: "dev_2"), issued) } == .wrongDevice(expected: "dev_1", received: "dev_2"))
        #expect(rejection { _ = try verify(try request(envelope), issued, keys: .some(nil)) } == .unknownDevice("dev_1"))
        #expect(rejection { _ = try verify(try request(envelope, keys: DeviceKeys.generate()), issued) } == .badSignature)
        #expect(rejection { _ = try verify(try request(envelope, number: nil), issued) } == .numberMissing)
        #expect(rejection { _ = try verify(try request(envelope, number: 27), issued) } == .wrongNumber(27))
        let noMatching = IssuedOperation(envelope: try Fixture.envelope(numbers: nil), correctNumber: nil, deviceID: "dev_1")
        #expect(rejection { _ = try verify(try request(noMatching.envelope, number: 27), noMatching) } == .numberNotExpected)
        #expect(AnswerRejection.wrongNumber(27).endsOperation)
        #expect(!AnswerRejection.badSignature.endsOperation)
    }

    @Test func aWrongNumberIsOnlyJudgedAfterTheSignatureSoNobodyElseCanFailTheOperation() throws {
        let envelope = try Fixture.envelope()
        let issued = IssuedOperation(envelope: envelope, correctNumber: 81)
        var forged = try request(envelope, number: 27, keys: DeviceKeys.generate())
        forged.deviceID = "dev_1"
        #expect(throws: AnswerRejection.badSignature) { _ = try verify(forged, issued) }
    }

    @Test func denialNeedsNoNumber() throws {
        let envelope = try Fixture.envelope()
        let verified = try verify(try request(envelope, decision: .deny, number: nil), IssuedOperation(envelope: envelope, correctNumber: 81))
        #expect(verified.event == .redeem(.deny))
        #expect(try OperationStatus.dispatched.after(verified.event) == .cancelled)
    }

    @Test func theSignatureCoversTheMessageSoASwappedTextFails() throws {
        let shown = try Fixture.envelope(type: .transactionConfirmation, message: "Pay 5 EUR to Bob", numbers: nil)
        let real = try Fixture.envelope(type: .transactionConfirmation, message: "Pay 5000 EUR to Mallory", numbers: nil)
        let answer = try request(shown, number: nil)
        #expect(throws: AnswerRejection.badSignature) { _ = try verify(answer, IssuedOperation(envelope: real)) }
        #expect(try verify(answer, IssuedOperation(envelope: shown)).decision == .approve)
    }

    @Test func registrationIsVerifiedWithTheKeysItEnrolls() throws {
        let envelope = try Fixture.envelope(type: .registration, numbers: nil)
        let newDevice = DeviceKeys.generate()
        let answer = try request(envelope, number: nil, deviceID: newDevice.publicKeys.fingerprint, keys: newDevice)
        #expect(answer.keys == newDevice.publicKeys)
        let verified = try AnswerVerifier.verify(answer, issued: IssuedOperation(envelope: envelope), deviceKeys: nil, now: Fixture.now)
        #expect(verified.enrolledKeys == newDevice.publicKeys)
        // Another key pair swapped into the body: the signature no longer covers it.
        var swapped = answer
        swapped.keys = DeviceKeys.generate().publicKeys
        #expect(throws: AnswerRejection.badSignature) {
            _ = try AnswerVerifier.verify(swapped, issued: IssuedOperation(envelope: envelope), deviceKeys: nil, now: Fixture.now)
        }
        var bare = answer
        bare.keys = nil
        #expect(throws: AnswerRejection.registrationKeysMissing) {
            _ = try AnswerVerifier.verify(bare, issued: IssuedOperation(envelope: envelope), deviceKeys: nil, now: Fixture.now)
        }
    }

    @Test func malformedRedeemBodiesNameTheField() throws {
        let valid = try JSONSerialization.jsonObject(with: try request(try Fixture.envelope()).json()) as! [String: Any]
        func body(_ edit: (inout [String: Any]) -> Void) throws -> Data {
            var object = valid
            edit(&object)
            return try JSONSerialization.data(withJSONObject: object)
        }
        for field in ["operation", "challenge", "decision", "signature", "deviceID"] {
            expectError(field, .missing) { _ = try RedeemRequest(json: try body { $0.removeValue(forKey: field) }) }
        }
        expectError("decision", .invalidValue) { _ = try RedeemRequest(json: try body { $0["decision"] = "maybe" }) }
        expectError("number", .invalidValue) { _ = try RedeemRequest(json: try body { $0["number"] = 100 }) }
        expectError("number", .invalidValue) { _ = try RedeemRequest(json: try body { $0["number"] = "81" }) }
        expectError("signature", .invalidValue) { _ = try RedeemRequest(json: try body { $0["signature"] = "AAAA" }) }
        expectError("deviceID", .invalidValue) { _ = try RedeemRequest(json: try body { $0["deviceID"] = "dev\n1" }) }
        expectError("body", .invalidValue) { _ = try RedeemRequest(json: Data("{".utf8)) }
    }
}
