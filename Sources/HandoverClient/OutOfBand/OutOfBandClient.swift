import Foundation
import LinkCallbacks
import OutOfBand

/// The phone's side of out-of-band operations: reads a request from a link, a QR code or a
/// push, shows it, and answers it with a signed decision.
///
/// ```swift
/// let keys = try DeviceKeys.loadOrCreate(from: keyStore)
/// let client = OutOfBandClient(
///     configuration: OutOfBandConfiguration(redeemHosts: ["handover.example.com"],
///                                           callbackPolicy: CallbackPolicy(allowedCustomSchemes: ["shop"])),
///     keys: keys, opener: UIApplicationURLOpener())
///
/// let pending = try client.receive(link: url)        // or qrText:, or pushUserInfo:
/// show(pending.type, pending.message, pending.numberChoices, pending.expiresAt)
/// switch await pending.approve(number: picked) {     // or await pending.deny()
/// case .approved(let countdown): showSuccess(countdown)   // opens x-success when it ends
/// case .denied: break                                     // x-cancel opened at once
/// case .failed(let failure, let errorReturn): showError(failure, errorReturn)  // the user taps to open x-error
/// }
/// ```
///
/// Before anything is shown, the client refuses (``OutOfBandClientError``) payloads it cannot
/// read or open, redeem URLs off ``OutOfBandConfiguration/redeemHosts``, return targets the
/// ``OutOfBandConfiguration/callbackPolicy`` does not allow, expired operations and operations
/// answered already on this device.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
public final class OutOfBandClient: Sendable {
    public let configuration: OutOfBandConfiguration
    public let keys: DeviceKeys
    private let transport: any RedeemTransport
    private let opener: any URLOpener
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    /// Operations answered (or being answered) here: the server is the authority on single
    /// use; this only keeps a double tap from sending twice.
    private let answered = Protected<[String: AnswerState]>([:])

    private enum AnswerState { case inFlight, done }

    /// - Parameters:
    ///   - configuration: the server's redeem origin and the callback policy.
    ///   - keys: this phone's signing and sealing keys.
    ///   - transport: how the answer is POSTed (URLSession by default).
    ///   - opener: opens the x-callback targets.
    ///   - clock: runs the success countdown.
    ///   - now: wall time, for the envelope's expiry.
    public init(configuration: OutOfBandConfiguration, keys: DeviceKeys, transport: any RedeemTransport = URLSessionRedeemTransport(),
                opener: any URLOpener, clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.keys = keys
        self.transport = transport
        self.opener = opener
        self.clock = clock
        self.now = now
    }

    /// The id this phone answers as.
    public var deviceID: String { configuration.deviceID ?? keys.publicKeys.fingerprint }

    /// The public keys to enroll.
    public var enrollment: DevicePublicKeys { keys.publicKeys }

    // MARK: Receiving

    /// Reads an operation from a link the app was opened with (universal link or x-callback-url).
    public func receive(link url: URL) throws(OutOfBandClientError) -> PendingOperation {
        let delivery: OperationDelivery
        do { delivery = try OperationDelivery(link: url) } catch { throw .unreadable(error) }
        return try receive(delivery)
    }

    /// Reads an operation from a scanned QR code's text.
    public func receive(qrText: String) throws(OutOfBandClientError) -> PendingOperation {
        let delivery: OperationDelivery
        do { delivery = try OperationDelivery(qrText: qrText) } catch { throw .unreadable(error) }
        return try receive(delivery)
    }

    /// Reads an operation from a push notification's `userInfo`.
    public func receive(pushUserInfo: [AnyHashable: Any]) throws(OutOfBandClientError) -> PendingOperation {
        let delivery: OperationDelivery
        do { delivery = try OperationDelivery(pushUserInfo: pushUserInfo) } catch { throw .unreadable(error) }
        return try receive(delivery)
    }

    /// Opens a delivered payload and checks it against the configuration.
    public func receive(_ delivery: OperationDelivery) throws(OutOfBandClientError) -> PendingOperation {
        let envelope: OperationEnvelope
        do { envelope = try delivery.payload.open(with: keys) } catch { throw .unreadable(error) }
        let host = envelope.redeemURL.host?.lowercased() ?? ""
        guard configuration.redeemHosts.contains(host) else { throw .redeemHostNotAllowed(host) }
        let callbacks = (envelope.callbacks ?? CallbackTargets()).overridden(by: delivery.callbacks)
        for (parameter, target) in [("x-success", callbacks.success), ("x-error", callbacks.error), ("x-cancel", callbacks.cancel)] {
            guard let target else { continue }
            do {
                try configuration.callbackPolicy.checkCallback(target.absoluteString, parameter: parameter, allowsCustomScheme: true)
            } catch { throw .callbackNotAllowed(error) }
        }
        guard !envelope.isExpired(at: now()) else { throw .expired(at: envelope.expiresAt) }
        guard answered.withLock({ $0[envelope.operation] }) == nil else { throw .alreadyAnswered(operation: envelope.operation) }
        return PendingOperation(envelope: envelope, callbacks: callbacks, channel: delivery.channel, client: self)
    }

    // MARK: Answering

    func answer(_ pending: PendingOperation, decision: OperationDecision, number: Int?) async throws(OutOfBandClientError) -> OperationResult {
        let envelope = pending.envelope
        if decision == .approve, let choices = envelope.numberChoices {
            guard let number, choices.contains(number) else { throw .numberNotOffered(number, choices: choices) }
        }
        let claimed = answered.withLock { answered -> Bool in
            guard answered[envelope.operation] == nil else { return false }
            answered[envelope.operation] = .inFlight
            return true
        }
        guard claimed else { throw .alreadyAnswered(operation: envelope.operation) }

        if envelope.isExpired(at: now()) {
            answered.withLock { $0[envelope.operation] = .done }
            return decision != .approve
                ? await cancelled(pending, recorded: false)
                : failed(pending, .expired(at: envelope.expiresAt))
        }
        let answer = OperationAnswer(envelope: envelope, deviceID: deviceID, decision: decision,
                                     number: decision == .approve ? number : nil, keys: keys.publicKeys)
        let outcome = await redeem(answer, at: envelope.redeemURL)
        answered.withLock { answered in
            switch outcome {
            // Unreachable, or a mistyped code with tries left: the person may answer again.
            case .failure(.unreachable), .failure(.rejected(_, "wrong_code", _)): answered[envelope.operation] = nil
            default: answered[envelope.operation] = .done
            }
        }
        switch (decision, outcome) {
        case (.deny, .success), (.report, .success):
            return await cancelled(pending, recorded: true)
        case (.deny, .failure), (.report, .failure):
            return await cancelled(pending, recorded: false)
        case (.approve, .success):
            let countdown = pending.callbacks.success.map {
                SuccessCountdown(target: $0, duration: configuration.successCountdown, clock: clock, opener: opener)
            }
            return .approved(countdown: countdown)
        case (.approve, .failure(let failure)):
            return failed(pending, failure)
        }
    }

    private func redeem(_ answer: OperationAnswer, at url: URL) async -> Result<Void, OperationFailure> {
        let body: Data
        do { body = try RedeemRequest(signing: answer, with: keys).json() } catch {
            return .failure(.rejected(status: 0, code: "signing_failed", reason: "the answer could not be signed: \(error)"))
        }
        let response: RedeemResponse
        do { response = try await transport.post(body, to: url) } catch {
            return .failure(.unreachable(error.localizedDescription))
        }
        guard (200..<300).contains(response.status) else {
            let problem = try? JSONDecoder().decode(APIErrorBody.self, from: response.body)
            return .failure(.rejected(status: response.status, code: problem?.error ?? "http_\(response.status)",
                                      reason: problem?.reason ?? String(decoding: response.body.prefix(300), as: UTF8.self)))
        }
        return .success(())
    }

    private func cancelled(_ pending: PendingOperation, recorded: Bool) async -> OperationResult {
        guard let target = pending.callbacks.cancel else { return .denied(cancelTarget: nil, opened: false, recorded: recorded) }
        let opened = await opener.open(target)
        return .denied(cancelTarget: target, opened: opened, recorded: recorded)
    }

    private func failed(_ pending: PendingOperation, _ failure: OperationFailure) -> OperationResult {
        let errorReturn = pending.callbacks.error.map { target in
            ErrorReturn(target: Self.appending(["errorCode": failure.code, "errorMessage": failure.description], to: target), opener: opener)
        }
        return .failed(failure, errorReturn: errorReturn)
    }

    /// `target` with `items` added to its query (before any fragment), percent-encoded.
    static func appending(_ items: [String: String], to target: URL) -> URL {
        var text = target.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let encoded = items.sorted { $0.key < $1.key }.map { "\($0.key)=\(PercentEncoding.encodeUnreserved($0.value))" }.joined(separator: "&")
        text += (text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?") + encoded
        return URL(string: text + fragment) ?? target
    }
}

/// An operation the phone received and may show: everything the user decides on.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
public struct PendingOperation: Sendable, Identifiable {
    /// The envelope as the server sent it.
    public let envelope: OperationEnvelope
    /// The return targets in force: the link's, else the envelope's.
    public let callbacks: CallbackTargets
    /// How it arrived.
    public let channel: OperationDelivery.Channel
    private let client: OutOfBandClient

    init(envelope: OperationEnvelope, callbacks: CallbackTargets, channel: OperationDelivery.Channel, client: OutOfBandClient) {
        self.envelope = envelope
        self.callbacks = callbacks
        self.channel = channel
        self.client = client
    }

    public var id: String { envelope.operation }
    public var type: OperationType { envelope.type }
    /// The transaction text to show, for a transaction confirmation.
    public var message: String? { envelope.message }
    /// The numbers to offer, from servers that still use number choices. `nil` for a sign-in
    /// that asks the person to type the code the other screen shows (Handover's server does).
    public var numberChoices: [Int]? { envelope.numberChoices }
    /// Whether the person must type the code shown on the screen they are signing in to.
    public var asksForCode: Bool { type == .authentication && envelope.numberChoices == nil }
    public var expiresAt: Date { envelope.expiresAt }
    /// The host that asks (show it: "handover.example.com asks you to sign in").
    public var requester: String { envelope.redeemURL.host ?? "" }

    /// Approves. For a sign-in, `number` is the code the person typed from the other screen (or,
    /// with ``numberChoices``, the one they picked). A mistyped code is answered
    /// `.failed(.rejected(422, "wrong_code", …))` while tries are left, and may be typed again.
    public func approve(number: Int? = nil) async throws(OutOfBandClientError) -> OperationResult {
        try await client.answer(self, decision: .approve, number: number)
    }

    /// Denies, and opens the `x-cancel` target at once.
    public func deny() async throws(OutOfBandClientError) -> OperationResult {
        try await client.answer(self, decision: .deny, number: nil)
    }

    /// Denies and reports that the person did not start this request ("this was not me"): the
    /// server marks it suspicious, alerts the IT team and locks out-of-band sign-in for the user.
    public func reportNotMe() async throws(OutOfBandClientError) -> OperationResult {
        try await client.answer(self, decision: .report, number: nil)
    }
}
