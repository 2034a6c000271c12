import Benchmark
import Foundation
import OutOfBand

/// The cryptography of one out-of-band operation, each side alone: the server seals the envelope
/// and verifies the answer; the phone opens the payload and signs the answer.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(3))

    let keys = DeviceKeys.generate()
    let envelope = try! OperationEnvelope(operation: "0f482bcb-c26e-4cf8-8768-0a87494d1c26", type: .authentication,
                                          redeemURL: URL(string: "https://handover.example.com/oob/operations/0f482bcb-c26e-4cf8-8768-0a87494d1c26/redeem")!,
                                          challenge: .random(), expiresAt: Date().addingTimeInterval(3600), numberChoices: [27, 81, 44])
    let payload = try! OperationPayload.sealed(envelope, to: keys.publicKeys)
    let answer = OperationAnswer(envelope: envelope, deviceID: keys.publicKeys.fingerprint, decision: .approve, number: 81, keys: nil)
    let request = try! RedeemRequest(signing: answer, with: keys)
    let issued = IssuedOperation(envelope: envelope, correctNumber: 81, deviceID: keys.publicKeys.fingerprint)
    let now = Date()

    Benchmark("Server: seal the envelope to the device (HPKE X25519)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try OperationPayload.sealed(envelope, to: keys.publicKeys).text) }
    }

    Benchmark("Phone: parse and open the sealed payload") { benchmark in
        let text = payload.text
        for _ in benchmark.scaledIterations { blackHole(try OperationPayload(text: text).open(with: keys)) }
    }

    Benchmark("Phone: sign the answer (P-256)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try RedeemRequest(signing: answer, with: keys).json()) }
    }

    Benchmark("Server: parse and verify the answer") { benchmark in
        let body = request.json()
        for _ in benchmark.scaledIterations {
            blackHole(try AnswerVerifier.verify(try RedeemRequest(json: body), issued: issued, deviceKeys: keys.publicKeys, now: now))
        }
    }
}
