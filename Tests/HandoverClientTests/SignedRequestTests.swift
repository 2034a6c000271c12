import Clocks
import Crypto
import Foundation
import HandoverClient
import LinkCallbacks
import Testing

@Suite(.timeLimit(.minutes(5))) struct SignedRequestTests {
    let key = P256.Signing.PrivateKey()
    let signedAt: Int64 = 1_700_000_000

    func receiver(requireSigned: Bool, now: Int64) throws -> (LogoutReceiver, CommandJournal) {
        let journal = try CommandJournal(folder: temporaryFolder())
        let configuration = ReceiverConfiguration(verifier: RequestVerifier(trustedKeys: [key.publicKey]),
                                                  requireSignedRequests: requireSigned)
        let receiver = LogoutReceiver(configuration: configuration, journal: journal, opener: RecordingOpener(),
                                      handler: ScriptedHandler([.succeed], clock: TestClock()), clock: TestClock(),
                                      now: { Date(timeIntervalSince1970: TimeInterval(now)) })
        return (receiver, journal)
    }

    func signed() throws -> UniversalLinkCallback {
        try RequestSigner(privateKey: key).sign(try UniversalLinkCallback(parsing: ulc().absoluteString), timestamp: signedAt)
    }

    @Test func signedLinkCarriesTimestampAndSignature() throws {
        let link = try signed()
        #expect(link.timestamp == signedAt)
        #expect(try Base64URL.decode(link.signature ?? "").count == 64)
        #expect(link.text.contains("ulc-ts=1700000000&ulc-sig="))
    }

    @Test func canonicalFormIsTheDocumentedLines() {
        let bytes = SignedRequestCanonicalForm.bytes(action: "https://a.example.com/logout", success: "https://l.example.com/ok",
                                                     error: "https://l.example.com/fail", timestamp: 42)
        #expect(String(decoding: bytes, as: UTF8.self)
            == "ULC-SIG-1\nhttps://a.example.com/logout\nhttps://l.example.com/ok\nhttps://l.example.com/fail\n42")
    }

    @Test func freshSignedLinkIsAccepted() throws {
        let (receiver, _) = try receiver(requireSigned: true, now: signedAt + 59)
        #expect(receiver.handle(try signed().url))
    }

    @Test func unsignedLinkIsRefusedWhenSignaturesAreRequired() throws {
        let (receiver, journal) = try receiver(requireSigned: true, now: signedAt)
        #expect(throws: ReceiverRejection.signature(.unsigned)) { try receiver.accept(ulc()) }
        #expect(try journal.load().isEmpty)
    }

    @Test func tamperedLinkIsRefused() throws {
        let (receiver, _) = try receiver(requireSigned: true, now: signedAt)
        let good = try signed()
        let tampered = try UniversalLinkCallback(action: good.action, success: URL(string: "https://evil.example.net/x")!,
                                                 error: good.error, timestamp: good.timestamp, signature: good.signature)
        #expect(throws: ReceiverRejection.signature(.badSignature)) { try receiver.accept(tampered.url) }
    }

    @Test func linkSignedByAnUntrustedKeyIsRefused() throws {
        let (receiver, _) = try receiver(requireSigned: true, now: signedAt)
        let other = try RequestSigner(privateKey: P256.Signing.PrivateKey()).sign(try UniversalLinkCallback(parsing: ulc().absoluteString), timestamp: signedAt)
        #expect(throws: ReceiverRejection.signature(.badSignature)) { try receiver.accept(other.url) }
    }

    @Test func linkOlderThanSixtySecondsIsRefused() throws {
        let (receiver, _) = try receiver(requireSigned: true, now: signedAt + 61)
        #expect(throws: ReceiverRejection.signature(.expired(ageSeconds: 61, limitSeconds: 60))) { try receiver.accept(try signed().url) }
    }

    @Test func plainReceiverIgnoresTheSignature() throws {
        let (receiver, _) = try receiver(requireSigned: false, now: signedAt + 3600)
        #expect(receiver.handle(try signed().url))
    }
}
