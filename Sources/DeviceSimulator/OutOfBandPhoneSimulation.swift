import Foundation
import HandoverProtocol
import HandoverClient
import LinkCallbacks
import OutOfBand
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays the phone's part of an out-of-band operation against a running Handover server, as
/// `handover simulate oob` does: enrolls the phone (once per key), has the server create the
/// operation, receives it the way the dispatcher delivers it, answers, and reads the final status.
///
/// ```swift
/// let simulation = OutOfBandPhoneSimulation(server: url, adminKey: key, keys: .generate())
/// let report = try await simulation.run(OutOfBandScenario(type: .authentication, dispatcher: .qr, decision: .approve))
/// print(report.finalStatus)   // succeeded
/// ```
public struct OutOfBandPhoneSimulation: Sendable {
    /// How the phone reads a QR code: the served PNG in, the text out (the CLI runs `zbarimg`).
    public typealias QRDecoder = @Sendable (Data) async throws -> String

    public let api: HandoverAPIConnection
    public let keys: DeviceKeys
    private let qrDecoder: QRDecoder?
    private let progress: @Sendable (String) -> Void
    private let sleep: @Sendable (Duration) async throws -> Void

    public init(server: URL, adminKey: String, keys: DeviceKeys, qrDecoder: QRDecoder? = nil,
                progress: @escaping @Sendable (String) -> Void = { _ in },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        api = HandoverAPIConnection(baseURL: server, key: adminKey)
        self.keys = keys
        self.qrDecoder = qrDecoder
        self.progress = progress
        self.sleep = sleep
    }

    /// The id the phone answers as: its signing key's fingerprint.
    public var deviceID: String { keys.publicKeys.fingerprint }

    // MARK: Running

    public func run(_ scenario: OutOfBandScenario) async throws -> OutOfBandReport {
        let client = makeClient()
        if scenario.type != .registration {
            try await enrollIfNeeded(user: scenario.user, client: client)
        }
        if scenario.dispatcher == .push { try await registerPushToken(scenario.pushToken) }

        guard let type = Components.Schemas.OperationInput._TypePayload(rawValue: scenario.type.rawValue),
              let dispatcher = Components.Schemas.OperationInput.DispatcherPayload(rawValue: scenario.dispatcher.rawValue) else {
            throw OutOfBandSimulationError.notInTheContract("\(scenario.type.rawValue) by \(scenario.dispatcher.rawValue)")
        }
        var body = Components.Schemas.OperationInput(_type: type, user: scenario.user, dispatcher: dispatcher)
        if scenario.type == .transactionConfirmation { body.message = scenario.message }
        if scenario.decision == .late { body.expiresIn = scenario.lateExpiry }
        let created = try await api.decode(SimulatedOperation.self, api.send("POST", "/api/v1/operations", body: try JSONEncoder().encode(body)))
        progress("created operation \(created.id) (\(created.type), by \(created.dispatcher))\(created.number.map { ", the web page shows \($0)" } ?? "")")

        let pending = try await receive(created, scenario: scenario, client: client)
        progress("the phone shows: \(pending.type.rawValue) from \(pending.requester)\(pending.asksForCode ? ", asking for the code on the other screen" : "")\(pending.message.map { ", \"\($0)\"" } ?? "")")

        var answerStatus: String
        switch scenario.decision {
        case .approve:
            answerStatus = describe(try await pending.approve(number: created.number))
        case .deny:
            answerStatus = describe(try await pending.deny())
        case .wrongNumber:
            guard let correct = created.number else { throw OutOfBandSimulationError.wrongNumberNeedsAuthentication }
            let wrong = pending.numberChoices?.first(where: { $0 != correct }) ?? (correct == 99 ? 10 : correct + 1)
            // A person who keeps mistyping: every try is used, then the request fails.
            var tries = 0
            repeat {
                tries += 1
                progress("typing \(wrong) instead of \(correct) (try \(tries))")
                answerStatus = describe(try await pending.approve(number: wrong))
            } while answerStatus.contains("wrong_code") && tries < 10
        case .late:
            let wait = max(0, created.expiresAt.timeIntervalSinceNow) + 1.2
            progress("waiting \(String(format: "%.1f", wait)) s, past the expiry, before answering")
            try await sleep(.milliseconds(Int(wait * 1000)))
            // The phone would refuse to send; send anyway, as a slow or hostile phone would.
            answerStatus = try await sendLate(pending.envelope, number: created.number)
        }
        progress("answer: \(answerStatus)")
        let final = try await api.decode(SimulatedOperation.self, api.send("GET", "/api/v1/operations/\(created.id)"))
        return OutOfBandReport(operation: created.id, type: created.type, dispatcher: created.dispatcher, decision: scenario.decision,
                               answer: answerStatus, finalStatus: final.status, failure: final.failure?.code,
                               expectedStatus: scenario.decision.expectedStatus)
    }

    private func makeClient() -> OutOfBandClient {
        let host = api.baseURL.host?.lowercased() ?? ""
        let configuration = OutOfBandConfiguration(redeemHosts: [host], callbackPolicy: CallbackPolicy(allowsLoopbackHTTP: true),
                                                   successCountdown: .zero)
        return OutOfBandClient(configuration: configuration, keys: keys, opener: NoOpener())
    }

    /// Enrolls this phone's keys for `user` unless they already are.
    public func enrollIfNeeded(user: String, client: OutOfBandClient? = nil) async throws {
        let query = user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user
        let devices = try await api.decode([SimulatedDevice].self, api.send("GET", "/api/v1/enrolled-devices?user=\(query)"))
        if devices.contains(where: { $0.id == deviceID && $0.deregisteredAt == nil }) {
            progress("phone \(deviceID) is already enrolled for \(user)")
            return
        }
        let body = try JSONSerialization.data(withJSONObject: ["type": "registration", "user": user, "dispatcher": "link"])
        let registration = try await api.decode(SimulatedOperation.self, api.send("POST", "/api/v1/operations", body: body))
        guard let link = registration.dispatch?.link.flatMap(URL.init(string:)) else { throw OutOfBandSimulationError.noLink }
        let result = try await (client ?? makeClient()).receive(link: link).approve()
        guard case .approved = result else { throw OutOfBandSimulationError.enrollmentFailed(describe(result)) }
        progress("enrolled phone \(deviceID) for \(user)")
    }

    private func registerPushToken(_ token: String) async throws {
        let registration = try PushTokenRegistration(deviceID: deviceID, token: token, keys: keys)
        _ = try await api.send("PUT", "/oob/devices/\(deviceID)/push-token", body: registration.json())
        progress("registered push token \(token.prefix(12))…")
    }

    private func receive(_ operation: SimulatedOperation, scenario: OutOfBandScenario, client: OutOfBandClient) async throws -> PendingOperation {
        switch scenario.dispatcher {
        case .link, .xCallbackLink:
            guard let link = operation.dispatch?.link.flatMap(URL.init(string:)) else { throw OutOfBandSimulationError.noLink }
            progress("opening the link (\(link.absoluteString.prefix(60))…)")
            return try client.receive(link: link)
        case .qr:
            guard let qrDecoder else { throw OutOfBandSimulationError.noQRDecoder }
            let png = try await api.send("GET", "/api/v1/operations/\(operation.id)/qr.png").body
            let text = try await qrDecoder(png)
            progress("scanned the QR code (\(png.count) bytes of PNG): \(text.prefix(60))…")
            return try client.receive(qrText: text)
        case .push:
            guard operation.dispatch?.push?.outcome == PushDeliveryOutcome.delivered.rawValue else {
                throw OutOfBandSimulationError.pushNotDelivered(operation.dispatch?.push?.outcome ?? "no push outcome")
            }
            guard let inboxURL = scenario.pushInbox else {
                throw OutOfBandSimulationError.pushNotDelivered("no push inbox to read it from; run apns-loopback and pass its HANDOVER_PUSH_INBOX")
            }
            let (body, _) = try await URLSession.shared.data(from: inboxURL.appendingPathComponent(scenario.pushToken))
            // Each payload is handed over as iOS hands a push to an app: its `userInfo`.
            guard let object = try JSONSerialization.jsonObject(with: body) as? [AnyHashable: Any],
                  let payloads = object["payloads"] as? [[AnyHashable: Any]], let last = payloads.last else {
                throw OutOfBandSimulationError.pushNotDelivered("the loopback APNs server has no push for this token")
            }
            progress("received the push (\(payloads.count) in the inbox)")
            return try client.receive(pushUserInfo: last)
        }
    }

    /// Signs and posts an approval after the expiry, bypassing the client's own expiry check.
    private func sendLate(_ envelope: OperationEnvelope, number: Int?) async throws -> String {
        let answer = OperationAnswer(envelope: envelope, deviceID: deviceID, decision: .approve, number: number, keys: nil)
        var request = URLRequest(url: envelope.redeemURL)
        request.httpMethod = "POST"
        request.httpBody = try RedeemRequest(signing: answer, with: keys).json()
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return "HTTP \(status) \((try? JSONDecoder().decode(APIErrorBody.self, from: data))?.error ?? "")"
    }

    private func describe(_ result: OperationResult) -> String {
        switch result {
        case .approved: "approved, accepted by the server"
        case .denied(_, _, let recorded): recorded ? "denied, recorded by the server" : "denied, not recorded"
        case .failed(let failure, _): "refused: \(failure.code) (\(failure))"
        }
    }
}

/// Opens nothing: the simulated phone has no other apps.
private struct NoOpener: URLOpener {
    func open(_ url: URL) async -> Bool { true }
}

/// What to play.
public struct OutOfBandScenario: Sendable {
    public enum Dispatcher: String, Sendable, CaseIterable {
        case push, qr, link
        case xCallbackLink = "x-callback-link"
    }

    public enum Decision: String, Sendable, CaseIterable {
        case approve, deny
        case wrongNumber = "wrong-number"
        case late

        /// The final status the server should show.
        public var expectedStatus: OperationStatus {
            switch self {
            case .approve: .succeeded
            case .deny: .cancelled
            case .wrongNumber: .failed
            case .late: .expired
            }
        }
    }

    public var type: OperationType
    public var dispatcher: Dispatcher
    public var decision: Decision
    public var user: String
    public var message: String
    /// The APNs token the phone registers, for push.
    public var pushToken: String
    /// Where the pushes sent to ``pushToken`` can be read, for push: apns-loopback's inbox
    /// (`…/push-inbox`, to which the token is appended).
    public var pushInbox: URL?
    /// `expiresIn` for a late answer.
    public var lateExpiry: Int

    public init(type: OperationType = .authentication, dispatcher: Dispatcher, decision: Decision = .approve, user: String = "sim-user",
                message: String = "Confirm the transfer of 25.00 EUR to Ward 7 supplies",
                pushToken: String = String(repeating: "5e", count: 32), pushInbox: URL? = nil, lateExpiry: Int = 2) {
        self.type = type
        self.dispatcher = dispatcher
        self.decision = decision
        self.user = user
        self.message = message
        self.pushToken = pushToken
        self.pushInbox = pushInbox
        self.lateExpiry = lateExpiry
    }
}

/// What happened.
public struct OutOfBandReport: Sendable, Codable, Equatable {
    public var operation: String
    public var type: String
    public var dispatcher: String
    public var decision: String
    /// What the phone saw when it answered.
    public var answer: String
    public var finalStatus: OperationStatus
    public var failure: String?
    public var expectedStatus: OperationStatus

    init(operation: String, type: String, dispatcher: String, decision: OutOfBandScenario.Decision, answer: String,
         finalStatus: OperationStatus, failure: String?, expectedStatus: OperationStatus) {
        self.operation = operation
        self.type = type
        self.dispatcher = dispatcher
        self.decision = decision.rawValue
        self.answer = answer
        self.finalStatus = finalStatus
        self.failure = failure
        self.expectedStatus = expectedStatus
    }

    public var isAsExpected: Bool { finalStatus == expectedStatus }
}

/// Why a simulation could not be played.
public enum OutOfBandSimulationError: Error, CustomStringConvertible {
    case noLink
    case noQRDecoder
    case pushNotDelivered(String)
    case enrollmentFailed(String)
    case wrongNumberNeedsAuthentication
    /// The scenario names an operation type or a dispatcher the API's contract (openapi.yaml) has not.
    case notInTheContract(String)

    public var description: String {
        switch self {
        case .noLink: "the server's answer carries no link"
        case .noQRDecoder: "no QR decoder: install zbarimg (apt-get install zbar-tools)"
        case .pushNotDelivered(let outcome): "the push was not delivered (\(outcome)); run `apns-loopback` and the server with --developer-mode and its environment"
        case .enrollmentFailed(let detail): "the phone could not enroll: \(detail)"
        case .wrongNumberNeedsAuthentication: "--decision wrong-number needs --type authentication (only sign-ins carry numbers)"
        case .notInTheContract(let what): "the server's API has no operation \(what)"
        }
    }
}

struct SimulatedOperation: Decodable {
    struct Dispatch: Decodable {
        struct Push: Decodable { var outcome: String }
        var link: String?
        var push: Push?
    }
    struct Failure: Decodable { var code: String }
    var id: String
    var type: String
    var status: OperationStatus
    var dispatcher: String
    var number: Int?
    var expiresAt: Date
    var dispatch: Dispatch?
    var failure: Failure?
}

struct SimulatedDevice: Decodable {
    var id: String
    var deregisteredAt: Date?
}
