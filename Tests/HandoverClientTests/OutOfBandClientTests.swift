import Clocks
import Foundation
import HandoverClient
import LinkCallbacks
import OutOfBand
import Testing

/// A redeem endpoint in memory that checks answers the way a server does (``AnswerVerifier``),
/// or answers from a script.
final class FakeRedeemServer: RedeemTransport, @unchecked Sendable {
    enum Reply { case verify, status(Int, String), unreachable }
    private let lock = NSLock()
    private var issued: [String: IssuedOperation] = [:]
    private var enrolled: [String: DevicePublicKeys] = [:]
    private var script: [Reply] = []
    private(set) var received: [(url: URL, request: RedeemRequest)] = []
    private(set) var verified: [VerifiedAnswer] = []
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) { self.now = now }

    func issue(_ operation: IssuedOperation) { lock.withLock { issued[operation.envelope.operation] = operation } }
    func enroll(_ keys: DevicePublicKeys, as deviceID: String) { lock.withLock { enrolled[deviceID] = keys } }
    func reply(_ replies: Reply...) { lock.withLock { script.append(contentsOf: replies) } }
    var requests: [RedeemRequest] { lock.withLock { received.map(\.request) } }

    func post(_ body: Data, to url: URL) async throws -> RedeemResponse {
        let request = try RedeemRequest(json: body)
        let (reply, operation, keys): (Reply, IssuedOperation?, DevicePublicKeys?) = lock.withLock {
            received.append((url, request))
            let reply = script.isEmpty ? Reply.verify : script.removeFirst()
            return (reply, issued[request.operation], enrolled[request.deviceID])
        }
        switch reply {
        case .unreachable:
            throw URLError(.notConnectedToInternet)
        case .status(let status, let code):
            return RedeemResponse(status: status, body: Data(#"{"error":"\#(code)","reason":"scripted \#(code)"}"#.utf8))
        case .verify:
            guard let operation else { return RedeemResponse(status: 404, body: Data(#"{"error":"not_found","reason":"no such operation"}"#.utf8)) }
            do {
                let answer = try AnswerVerifier.verify(request, issued: operation, deviceKeys: keys, now: now())
                lock.withLock { verified.append(answer) }
                return RedeemResponse(status: 200, body: Data(#"{"status":"redeemed"}"#.utf8))
            } catch {
                return RedeemResponse(status: 409, body: Data(#"{"error":"\#(error.code)","reason":"\#(error.description)"}"#.utf8))
            }
        }
    }
}

/// A wall clock the test moves.
final class WallClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_750_000_000)
    var now: Date { lock.withLock { current } }
    func advance(seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
    var read: @Sendable () -> Date { { [self] in now } }
}

@Suite(.timeLimit(.minutes(5))) struct OutOfBandClientTests {
    let wall = WallClock()
    let clock = TestClock()
    let opener = RecordingOpener()
    let keys = DeviceKeys.generate()
    let server: FakeRedeemServer
    let redeemURL = URL(string: "https://handover.example.com/oob/operations/op_1/redeem")!
    let shop = CallbackTargets(success: URL(string: "https://shop.example/done")!, error: URL(string: "shop://x-callback-url/failed")!,
                               cancel: URL(string: "https://shop.example/cancelled")!)

    init() {
        server = FakeRedeemServer(now: wall.read)
    }

    func client(deviceID: String = "dev_1", hosts: Set<String> = ["handover.example.com"],
                policy: CallbackPolicy? = nil) -> OutOfBandClient {
        let policy = policy ?? (try? CallbackPolicy(allowedHosts: HostAllowlist(["shop.example"]), allowedCustomSchemes: ["shop"])) ?? .default
        server.enroll(keys.publicKeys, as: deviceID)
        return OutOfBandClient(configuration: OutOfBandConfiguration(redeemHosts: hosts, callbackPolicy: policy, deviceID: deviceID),
                               keys: keys, transport: server, opener: opener, clock: clock, now: wall.read)
    }

    /// Issues an operation on the fake server and returns its envelope.
    func issue(_ type: OperationType = .authentication, message: String? = nil, numbers: NumberMatch? = NumberMatch(choices: [27, 81, 44], correct: 81),
               callbacks: CallbackTargets? = nil, lifetime: TimeInterval = 120, deviceID: String? = "dev_1", id: String = "op_1") throws -> OperationEnvelope {
        let envelope = try OperationEnvelope(operation: id, type: type, redeemURL: redeemURL, challenge: .random(),
                                             expiresAt: wall.now.addingTimeInterval(lifetime), message: message,
                                             numberChoices: numbers?.choices, callbacks: callbacks)
        server.issue(IssuedOperation(envelope: envelope, correctNumber: numbers?.correct, deviceID: deviceID))
        return envelope
    }

    func push(_ envelope: OperationEnvelope) throws -> [AnyHashable: Any] {
        let body = try OperationPush(payload: .sealed(envelope, to: keys.publicKeys), title: "Sign in?").json()
        return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    @Test func approvalByPushWithTheRightNumberIsRedeemedAndOpensSuccessAfterTheCountdown() async throws {
        let envelope = try issue(callbacks: shop)
        let pending = try client().receive(pushUserInfo: try push(envelope))
        #expect(pending.type == .authentication)
        #expect(pending.numberChoices == [27, 81, 44])
        #expect(pending.expiresAt == envelope.expiresAt)
        #expect(pending.requester == "handover.example.com")
        #expect(pending.channel == .push)

        let result = try await pending.approve(number: 81)
        guard case .approved(let countdown?) = result else { Issue.record("\(result)"); return }
        #expect(server.verified.map(\.decision) == [.approve])
        #expect(server.received.first?.url == redeemURL)
        #expect(server.requests.first?.number == 81)
        #expect(countdown.target == shop.success)
        #expect(countdown.remaining == .seconds(3))
        await settle()
        await clock.advance(by: .milliseconds(2_990))
        await settle()
        #expect(opener.opened.isEmpty)
        #expect(countdown.currentState == .counting)
        await clock.advance(by: .milliseconds(10))
        #expect(await countdown.finished() == .opened(accepted: true))
        #expect(opener.opened == [shop.success])
        #expect(countdown.remaining == .zero)
    }

    @Test func theSuccessTargetOpensEvenWhenTheAppDropsTheCountdown() async throws {
        let envelope = try issue(callbacks: shop)
        _ = try await client().receive(pushUserInfo: try push(envelope)).approve(number: 81)
        let took = await advance(clock, step: .milliseconds(100), limit: .seconds(10)) { !opener.opened.isEmpty }
        #expect(opener.opened == [shop.success])
        #expect(took.map { $0 >= .seconds(3) && $0 <= .milliseconds(3_100) } == true, "\(String(describing: took))")
    }

    @Test func continueOpensAtOnceAndStayNeverOpens() async throws {
        let first = try issue(callbacks: shop, id: "op_1")
        let client = client()
        guard case .approved(let countdown?) = try await client.receive(pushUserInfo: try push(first)).approve(number: 81) else {
            Issue.record("not approved"); return
        }
        #expect(await countdown.openNow())
        #expect(opener.opened == [shop.success])
        await clock.advance(by: .seconds(10))
        #expect(opener.opened.count == 1)

        let second = try issue(callbacks: shop, id: "op_2")
        guard case .approved(let stayed?) = try await client.receive(pushUserInfo: try push(second)).approve(number: 81) else {
            Issue.record("not approved"); return
        }
        stayed.stop()
        await clock.advance(by: .seconds(10))
        #expect(await stayed.finished() == .stopped)
        #expect(opener.opened.count == 1)
    }

    @Test func denialIsSignedAndOpensTheCancelTargetAtOnce() async throws {
        let envelope = try issue()
        let link = OperationLink.xCallback(scheme: "handover", payload: try .sealed(envelope, to: keys.publicKeys), callbacks: shop)
        let pending = try client().receive(link: try #require(link.url))
        #expect(pending.channel == .link)
        #expect(pending.callbacks == shop)
        let result = try await pending.deny()
        guard case .denied(let target, let opened, let recorded) = result else { Issue.record("\(result)"); return }
        #expect(target == shop.cancel && opened && recorded)
        #expect(opener.opened == [shop.cancel])
        #expect(server.verified.map(\.decision) == [.deny])
        #expect(server.requests.first?.number == nil)
    }

    @Test func aServerRefusalWaitsForTheUserBeforeOpeningTheErrorTarget() async throws {
        let envelope = try issue(callbacks: shop)
        server.reply(.status(409, "wrong_number"))
        let result = try await client().receive(pushUserInfo: try push(envelope)).approve(number: 27)
        guard case .failed(let failure, let errorReturn?) = result else { Issue.record("\(result)"); return }
        #expect(failure == .rejected(status: 409, code: "wrong_number", reason: "scripted wrong_number"))
        #expect(opener.opened.isEmpty)
        await clock.advance(by: .seconds(60))
        #expect(opener.opened.isEmpty)
        let text = errorReturn.target.absoluteString
        #expect(text.hasPrefix("shop://x-callback-url/failed?errorCode=wrong_number&errorMessage=The%20server%20refused"))
        #expect(await errorReturn.open())
        #expect(opener.opened == [errorReturn.target])
    }

    @Test func theRealVerifierRejectsAWrongNumber() async throws {
        let envelope = try issue()
        let result = try await client().receive(pushUserInfo: try push(envelope)).approve(number: 44)
        guard case .failed(.rejected(409, "wrong_number", _), nil) = result else { Issue.record("\(result)"); return }
    }

    @Test func transactionConfirmationShowsTheSignedMessage() async throws {
        let envelope = try issue(.transactionConfirmation, message: "Pay 25.00 EUR to Example Shop", numbers: nil)
        let pending = try client().receive(qrText: OperationLink.universalLink(base: URL(string: "https://handover.example.com/oob")!,
                                                                               payload: try .sealed(envelope, to: keys.publicKeys)).text)
        #expect(pending.message == "Pay 25.00 EUR to Example Shop")
        #expect(pending.channel == .qrCode)
        guard case .approved(nil) = try await pending.approve() else { Issue.record("not approved"); return }
        #expect(server.verified.count == 1)
    }

    @Test func registrationFromAPlainQRCodeEnrollsTheDevicesKeys() async throws {
        let envelope = try issue(.registration, numbers: nil, deviceID: nil)
        let client = client(deviceID: "new-phone")
        let pending = try client.receive(qrText: OperationPayload.plain(envelope).text)
        guard case .approved = try await pending.approve() else { Issue.record("not approved"); return }
        #expect(server.verified.first?.enrolledKeys == client.enrollment)
        #expect(server.requests.first?.keys == keys.publicKeys)
    }

    @Test func expiredOperationsAreRefusedLocally() async throws {
        let envelope = try issue(callbacks: shop, lifetime: 60)
        let client = client()
        let pending = try client.receive(pushUserInfo: try push(envelope))
        wall.advance(seconds: 61)
        #expect(throws: OutOfBandClientError.expired(at: envelope.expiresAt)) { _ = try client.receive(pushUserInfo: try push(envelope)) }
        let result = try await pending.approve(number: 81)
        guard case .failed(.expired(let at), let errorReturn?) = result else { Issue.record("\(result)"); return }
        #expect(at == envelope.expiresAt)
        #expect(errorReturn.target.absoluteString.contains("errorCode=expired"))
        #expect(server.received.isEmpty)
        #expect(opener.opened.isEmpty)
    }

    @Test func aSecondAnswerIsRefusedOnTheDevice() async throws {
        let envelope = try issue()
        let client = client()
        let pending = try client.receive(pushUserInfo: try push(envelope))
        _ = try await pending.approve(number: 81)
        await #expect(throws: OutOfBandClientError.alreadyAnswered(operation: "op_1")) { _ = try await pending.approve(number: 81) }
        #expect(throws: OutOfBandClientError.alreadyAnswered(operation: "op_1")) { _ = try client.receive(pushUserInfo: try push(envelope)) }
        #expect(server.received.count == 1)
    }

    @Test func aNumberNotOfferedIsRefusedWithoutUsingUpTheOperation() async throws {
        let envelope = try issue()
        let pending = try client().receive(pushUserInfo: try push(envelope))
        await #expect(throws: OutOfBandClientError.numberNotOffered(nil, choices: [27, 81, 44])) { _ = try await pending.approve() }
        await #expect(throws: OutOfBandClientError.numberNotOffered(12, choices: [27, 81, 44])) { _ = try await pending.approve(number: 12) }
        #expect(server.received.isEmpty)
        guard case .approved = try await pending.approve(number: 81) else { Issue.record("not approved"); return }
    }

    @Test func anUnreachableServerLetsTheUserTryAgain() async throws {
        let envelope = try issue()
        server.reply(.unreachable)
        let pending = try client().receive(pushUserInfo: try push(envelope))
        guard case .failed(.unreachable, nil) = try await pending.approve(number: 81) else { Issue.record("not unreachable"); return }
        guard case .approved = try await pending.approve(number: 81) else { Issue.record("not approved on retry"); return }
        #expect(server.received.count == 2)
    }

    @Test func envelopesThatPointElsewhereAreRefusedBeforeShowing() throws {
        let envelope = try issue(callbacks: shop)
        #expect(throws: OutOfBandClientError.redeemHostNotAllowed("handover.example.com")) {
            _ = try client(hosts: ["other.example"]).receive(pushUserInfo: try push(envelope))
        }
        let hostile = OperationLink.xCallback(scheme: "handover", payload: try .sealed(envelope, to: keys.publicKeys),
                                              callbacks: CallbackTargets(success: URL(string: "https://evil.example/steal")!))
        do {
            _ = try client().receive(link: try #require(hostile.url))
            Issue.record("accepted a target off the allowlist")
        } catch {
            guard case .callbackNotAllowed(let reason)? = error as? OutOfBandClientError else { Issue.record("\(error)"); return }
            #expect(reason.parameter == "x-success")
            #expect(reason.problem == .hostNotAllowed)
        }
        let other = DeviceKeys.generate()
        let foreign = try OperationPush(payload: .sealed(envelope, to: other.publicKeys)).json()
        do {
            _ = try client().receive(pushUserInfo: try #require(try JSONSerialization.jsonObject(with: foreign) as? [String: Any]))
            Issue.record("opened a payload sealed to another device")
        } catch {
            guard case .unreadable(let reason)? = error as? OutOfBandClientError else { Issue.record("\(error)"); return }
            #expect(reason.problem == .notForThisDevice)
        }
        #expect(throws: OutOfBandClientError.self) { _ = try client().receive(qrText: "https://handover.example.com/oob") }
    }

    @Test func linkTargetsOverrideTheEnvelopes() async throws {
        let envelope = try issue(callbacks: CallbackTargets(success: URL(string: "https://shop.example/from-envelope")!,
                                                            error: URL(string: "https://shop.example/envelope-error")!))
        let link = OperationLink.xCallback(scheme: "handover", payload: try .sealed(envelope, to: keys.publicKeys),
                                           callbacks: CallbackTargets(success: URL(string: "shop://x-callback-url/from-link")!))
        let pending = try client().receive(link: try #require(link.url))
        #expect(pending.callbacks.success?.absoluteString == "shop://x-callback-url/from-link")
        #expect(pending.callbacks.error?.absoluteString == "https://shop.example/envelope-error")
    }

    @Test func deviceKeysPersistInTheFileStore() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileDeviceKeyStore(url: folder.appendingPathComponent("device-keys"))
        #expect(try store.load() == nil)
        let first = try DeviceKeys.loadOrCreate(from: store)
        let second = try DeviceKeys.loadOrCreate(from: FileDeviceKeyStore(url: store.url))
        #expect(first.publicKeys == second.publicKeys)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        try Data("short".utf8).write(to: store.url)
        #expect(throws: OutOfBandError.self) { _ = try store.load() }
    }
}
