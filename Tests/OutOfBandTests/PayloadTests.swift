import Crypto
import Foundation
import Testing
@testable import OutOfBand

@Suite(.timeLimit(.minutes(5))) struct PayloadTests {
    @Test func sealedPayloadOpensOnlyWithTheDevicesKey() throws {
        let device = DeviceKeys.generate(), other = DeviceKeys.generate()
        let envelope = try Fixture.envelope(type: .transactionConfirmation, message: "Pay 25 EUR")
        let payload = try OperationPayload.sealed(envelope, to: device.publicKeys)
        #expect(payload.isSealed)
        #expect(payload.text.hasPrefix("v1.e.\(device.publicKeys.agreementKeyID)."))
        #expect(!payload.text.contains("Pay"))
        #expect(try OperationPayload(text: payload.text) == payload)
        #expect(try OperationPayload(text: payload.text).open(with: device) == envelope)
        expectError("p", .notForThisDevice) { _ = try payload.open(with: other) }
        expectError("p", .notForThisDevice) { _ = try payload.open(with: nil) }
    }

    @Test func sealingTwiceGivesDifferentCiphertexts() throws {
        let device = DeviceKeys.generate()
        let envelope = try Fixture.envelope()
        #expect(try OperationPayload.sealed(envelope, to: device.publicKeys).text != OperationPayload.sealed(envelope, to: device.publicKeys).text)
    }

    @Test func alteredCiphertextOrKeyIDDoesNotOpen() throws {
        let device = DeviceKeys.generate(), other = DeviceKeys.generate()
        let payload = try OperationPayload.sealed(Fixture.envelope(), to: device.publicKeys)
        guard case .sealed(let keyID, let encapsulatedKey, var ciphertext) = payload else { Issue.record("not sealed"); return }
        ciphertext[ciphertext.startIndex + 3] ^= 0x01
        expectError("p", .decryptionFailed) {
            _ = try OperationPayload.sealed(keyID: keyID, encapsulatedKey: encapsulatedKey, ciphertext: ciphertext).open(with: device)
        }
        // Sealed to `other`, relabelled with `device`'s key id: the associated data no longer matches.
        guard case .sealed(_, let otherKey, let otherText) = try OperationPayload.sealed(Fixture.envelope(), to: other.publicKeys) else { return }
        expectError("p", .decryptionFailed) {
            _ = try OperationPayload.sealed(keyID: keyID, encapsulatedKey: otherKey, ciphertext: otherText).open(with: device)
        }
    }

    @Test func plainPayloadIsBase64URLJSON() throws {
        let envelope = try Fixture.envelope()
        let payload = OperationPayload.plain(envelope)
        #expect(payload.text.hasPrefix("v1.p.ey"))
        #expect(try OperationPayload(text: payload.text).open(with: nil) == envelope)
        #expect(try payload.open(with: DeviceKeys.generate()) == envelope)
    }

    @Test func wireFormatErrorsNameThePartAndTheForm() {
        expectError("p", .missing) { _ = try OperationPayload(text: "") }
        expectError("p", .unsupportedVersion) { _ = try OperationPayload(text: "v2.p.e30") }
        expectError("p", .invalidPayload) { _ = try OperationPayload(text: "hello") }
        expectError("p", .invalidPayload) { _ = try OperationPayload(text: "v1.x.e30") }
        expectError("p", .invalidPayload) { _ = try OperationPayload(text: "v1.p.e30.e30") }
        expectError("p", .invalidPayload) { _ = try OperationPayload(text: "v1.p.") }
        expectError("p", .invalidBase64URL) { _ = try OperationPayload(text: "v1.p.e30=") }
        expectError("p.keyID", .invalidPayload) { _ = try OperationPayload(text: "v1.e.AAAA.AAAA.AAAA") }
        expectError("p.encapsulatedKey", .invalidPayload) { _ = try OperationPayload(text: "v1.e.AAAAAAAAAAA.AAAA.AAAA") }
        expectError("p", .tooLong) { _ = try OperationPayload(text: "v1.p." + String(repeating: "A", count: OperationPayload.maximumLength)) }
        expectError("type", .missing) { _ = try OperationPayload(text: "v1.p.e30").open(with: nil) }   // {}
    }

    @Test func pushPayloadFitsOrNamesItsSize() throws {
        let device = DeviceKeys.generate()
        let longest = String(repeating: "é", count: OperationEnvelope.maximumMessageLength)
        let envelope = try Fixture.envelope(type: .transactionConfirmation, message: longest)
        let push = OperationPush(payload: try .sealed(envelope, to: device.publicKeys), title: "Approve payment?")
        let body = try push.json()
        #expect(body.count <= OperationEnvelope.maximumPushPayloadBytes)
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        let aps = object?["aps"] as? [String: Any]
        #expect((aps?["alert"] as? [String: String])?["title"] == "Approve payment?")
        #expect(aps?["interruption-level"] as? String == "time-sensitive")
        #expect(try OperationDelivery(pushUserInfo: object ?? [:]).payload.open(with: device) == envelope)

        let huge = try Fixture.envelope(type: .transactionConfirmation, message: String(repeating: "🧾", count: OperationEnvelope.maximumMessageLength))
        let error = #expect(throws: PushPayloadTooLarge.self) { try OperationPush(payload: .sealed(huge, to: device.publicKeys)).json() }
        #expect(error?.limit == 4096)
        #expect((error?.bytes ?? 0) > 4096)
        #expect(error?.description.contains("\(error?.bytes ?? 0) bytes") == true)
    }

    @Test func deviceKeysSurviveTheirRawForm() throws {
        let keys = DeviceKeys.generate()
        let restored = try DeviceKeys(rawRepresentation: keys.rawRepresentation)
        #expect(restored.publicKeys == keys.publicKeys)
        expectError("deviceKeys", .invalidKey) { _ = try DeviceKeys(rawRepresentation: Data(count: 10)) }
    }

    @Test func publicKeysTravelAsBase64URLAndRefuseWrongKeys() throws {
        let keys = DeviceKeys.generate().publicKeys
        #expect(keys.signingKeyText.count == 87)     // 65 bytes
        #expect(keys.agreementKeyText.count == 43)   // 32 bytes
        let json = try JSONEncoder().encode(keys)
        #expect(try JSONDecoder().decode(DevicePublicKeys.self, from: json) == keys)
        #expect(try DevicePublicKeys(signingKey: keys.signingKeyText, agreementKey: keys.agreementKeyText) == keys)
        expectError("signingKey", .invalidKey) { _ = try DevicePublicKeys(signingKey: keys.agreementKeyText, agreementKey: keys.agreementKeyText) }
        expectError("agreementKey", .invalidKey) { _ = try DevicePublicKeys(signingKey: keys.signingKeyText, agreementKey: "AAAA") }
        expectError("signingKey", .invalidBase64URL) { _ = try DevicePublicKeys(signingKey: "a=", agreementKey: keys.agreementKeyText) }
        #expect(keys.fingerprint.count == 22)
    }
}
