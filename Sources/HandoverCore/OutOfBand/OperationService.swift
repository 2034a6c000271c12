import Crypto
import Foundation
import HandoverProtocol
import HandoverSchema
import LinkCallbacks
import OutOfBand
import Prometheus

/// Creates, dispatches, answers and expires out-of-band operations.
///
/// Every status change is one conditional `UPDATE … WHERE status IN (…)`, so exactly one answer
/// (or the expiry) moves an operation out of `created`/`dispatched`, across instances too; each
/// change is announced to SSE streams through ``RunChangeNotifier``. The statements are
/// ``OutOfBandStore``'s.
package struct OperationService {
    /// The service on a given database, as the server builds it once and its routes call it.
    package typealias OnDatabase = @Sendable (DatabaseHandle) -> OperationService

    package let database: DatabaseHandle
    package let clock: ServerClock
    /// The server's public origin: redeem URLs, links and the QR code's address.
    package let publicURL: URL
    /// Callback targets may be http on loopback (``ServerConfiguration/developerMode``).
    package let developerMode: Bool
    package let metrics: ServerMetrics
    /// Announces each change to the operation's event streams.
    package let notifier: RunChangeNotifier
    /// Queues this service's writes on SQLite.
    package let writes: WriteGate
    /// Sends operations by APNs; nil when the server has no APNs key.
    package let push: PushSender?
    /// The phone app's custom scheme for `x-callback-link` operations.
    package let linkScheme: String

    private var now: Date { clock.now() }
    /// The area's statements, on ``database``.
    private var store: OutOfBandStore { OutOfBandStore(database) }

    // MARK: Callback allowlist

    package func allowlist() async throws -> CallbackAllowlistView {
        guard let record = try await store.allowlistRecord() else {
            return CallbackAllowlistView(hosts: [], schemes: [])
        }
        return CallbackAllowlistView(hosts: Self.decodeList(record.hosts), schemes: Self.decodeList(record.schemes))
    }

    package func setAllowlist(hosts: [String], schemes: [String]) async throws -> CallbackAllowlistView {
        let record = try await store.allowlistRecord() ?? {
            let fresh = CallbackAllowlistRecord()
            fresh.id = CallbackAllowlistRecord.defaultTenant
            return fresh
        }()
        record.hosts = Self.encodeList(hosts)
        record.schemes = Self.encodeList(schemes)
        record.updatedAt = now
        try await store.save(record)
        return CallbackAllowlistView(hosts: hosts, schemes: schemes)
    }

    /// The policy callbacks must pass: the tenant's hosts and schemes (nothing when empty), and
    /// http on loopback in developer mode.
    package func callbackPolicy() async throws -> CallbackPolicy {
        let list = try await allowlist()
        return CallbackPolicy(allowedHosts: try HostAllowlist(list.hosts), allowedCustomSchemes: Set(list.schemes),
                              allowsLoopbackHTTP: developerMode)
    }

    // MARK: Creating

    /// Stores the operation, then dispatches it; the answer carries the dispatch result.
    ///
    /// - Parameter unknownUsersLookEnrolled: for the sign-in web page: an authentication for a user
    ///   with no enrolled phone is made all the same, addressed to no phone and sealed to a
    ///   throwaway key, so that the page answers alike whether or not the user exists (no user
    ///   enumeration). Nothing can approve it; it expires.
    package func create(_ input: NewOperation.Checked, browserSecretHash: String? = nil, unknownUsersLookEnrolled: Bool = false) async throws -> OperationView {
        let started = now
        var device: EnrolledDevice?
        var locked = false
        if input.type == .authentication { locked = try await store.lock(of: input.user) != nil }
        if locked && !unknownUsersLookEnrolled {
            throw DomainError(.conflict, code: "user_locked",
                           reason: "Out-of-band sign-in is locked for this user: they reported a request as not theirs. "
                               + "An admin clears it with DELETE /api/v1/oob-locks/{user}.", field: "user")
        }
        if input.type != .registration && !locked {
            device = try await addressedDevice(user: input.user, id: input.device)
            // The sign-in page's authentication for a user with no phone is made all the same.
            if device == nil && !(unknownUsersLookEnrolled && input.type == .authentication) {
                throw Self.noEnrolledDevice(id: input.device)
            }
        }
        if input.dispatcher == .push {
            guard push != nil else {
                throw DomainError(.invalidField, code: "push_not_configured",
                               reason: "This server has no APNs key (handover serve --apns-private-key-file …); use qr, link or x-callback-link.",
                               field: "dispatcher")
            }
            guard device?.pushToken != nil, device?.pushTokenActive == true else {
                throw DomainError(.invalidField, code: "no_push_token",
                               reason: "The device \(device?.id ?? "") has no active push token; use qr, link or x-callback-link, or let the app register its token.",
                               field: "dispatcher")
            }
        }
        let operation = OutOfBandOperation()
        operation.id = UUID()
        operation.type = input.type.rawValue
        operation.user = input.user
        operation.message = input.message
        operation.dispatcher = input.dispatcher.rawValue
        operation.status = OperationStatus.created.rawValue
        operation.challenge = OperationChallenge.random().text
        if input.type == .authentication {
            // The code the sign-in screen shows and the person types on the phone (no choices are
            // sent: a tired tap cannot approve). Wrong codes are counted (``CodeTries``).
            operation.correctNumber = NumberMatch.random().correct
            operation.codeAttempts = 0
        }
        operation.deviceID = device?.id
        if let callbacks = input.callbacks {
            operation.callbacks = String(decoding: try JSONEncoder.api.encode(callbacks), as: UTF8.self)
        }
        operation.createdAt = started
        operation.updatedAt = started
        operation.expiresAt = Date(timeIntervalSince1970: (started.timeIntervalSince1970 + Double(input.expiresIn)).rounded(.down))
        operation.browserSecretHash = browserSecretHash
        let payload = try self.payload(for: try envelope(operation), device: device)
        let id = try operation.storedID.uuidString.lowercased()

        // A link or QR code is handed over with this answer: the operation is stored dispatched
        // (one write). A push is stored created, and dispatched once APNs took it.
        var dispatch = OperationView.Dispatch()
        switch input.dispatcher {
        case .link:
            dispatch.link = universalLink(payload).text
        case .qr:
            dispatch.link = universalLink(payload).text
            let base = "\(publicURL.absoluteString)/api/v1/operations/\(id)"
            dispatch.qr = .init(svg: base + "/qr.svg", png: base + "/qr.png")
        case .xCallbackLink:
            dispatch.link = OperationLink.xCallback(scheme: linkScheme, payload: payload,
                                                    callbacks: input.callbacks ?? CallbackTargets()).text
        case .push:
            // The link goes back too, for the page to offer when the push does not arrive.
            dispatch.link = universalLink(payload).text
        }
        if input.dispatcher != .push { operation.status = OperationStatus.dispatched.rawValue }
        try await writes.write { try await store.create(operation) }
        metrics.operationsCreated(input.type.rawValue).increment()
        guard input.dispatcher == .push, let device else { return try OperationView(operation, dispatch: dispatch) }

        let result = await pushOperation(operation, payload: payload, device: device)
        dispatch.push = .init(outcome: result.text, device: device.id ?? "")
        if case .delivered = result {
            _ = try await move(operation.storedID, from: [.created], to: .dispatched)
        }
        return try OperationView(try await find(operation.storedID), dispatch: dispatch)
    }

    /// The device an operation for `user` goes to: the one named, or the user's most recently
    /// enrolled; nil when there is none.
    private func addressedDevice(user: String, id: String?) async throws -> EnrolledDevice? {
        try await store.phone(for: user, id: id)
    }

    /// No phone to address: the one named (`id`) is not enrolled for the user, or the user has none.
    package static func noEnrolledDevice(id: String?) -> DomainError {
        if let id {
            return DomainError(.invalidField, code: "no_enrolled_device",
                               reason: "No phone with id \(id) is enrolled for this user; enroll it with a registration operation first.",
                               field: "device")
        }
        return DomainError(.invalidField, code: "no_enrolled_device",
                           reason: "This user has no enrolled phone; enroll one with a registration operation first.", field: "user")
    }

    private func pushOperation(_ operation: OutOfBandOperation, payload: OperationPayload, device: EnrolledDevice) async -> PushSender.Result {
        guard let push, let token = device.pushToken, let type = OperationType(rawValue: operation.type) else {
            return .failed("push is not configured")
        }
        let result = await push.send(payload, type: type, requester: publicURL.host ?? "Handover", to: token,
                                     expiresAt: operation.expiresAt)
        metrics.pushesSent(result.outcome.rawValue).increment()
        operation.pushOutcome = result.text
        try? await store.setPushOutcome(result.text, ofOperation: operation.id!)
        if result == .unregistered {
            // APNs says the token is dead: never send to it again.
            try? await store.deactivatePushToken(token, ofPhone: device.id!)
        }
        return result
    }

    // MARK: The envelope and its carriers

    /// The envelope the phone opens, rebuilt from the stored operation.
    package func envelope(_ operation: OutOfBandOperation) throws -> OperationEnvelope {
        let id = try operation.storedID.uuidString.lowercased()
        guard let type = OperationType(rawValue: operation.type) else { throw Self.unreadable("type", operation.type) }
        let redeemURL = publicURL.appendingPathComponent("oob").appendingPathComponent("operations")
            .appendingPathComponent(id).appendingPathComponent("redeem")
        var callbacks: CallbackTargets?
        if let text = operation.callbacks { callbacks = try JSONDecoder.api.decode(CallbackTargets.self, from: Data(text.utf8)) }
        let challenge = try OperationChallenge(text: operation.challenge)
        let choices = operation.numberChoices.map { $0.split(separator: ",").compactMap { Int($0) } }
        let result: Result<OperationEnvelope, OutOfBandError> = Result { () throws(OutOfBandError) -> OperationEnvelope in
            try OperationEnvelope(operation: id, type: type, redeemURL: redeemURL, challenge: challenge, expiresAt: operation.expiresAt,
                                  message: operation.message, numberChoices: choices, callbacks: callbacks)
        }
        switch result {
        case .success(let envelope):
            return envelope
        case .failure(let error) where error.field == "redeemURL":
            throw DomainError(.conflict, code: "public_url_not_https",
                           reason: "Phones redeem at \(redeemURL.absoluteString), which is not https: start the server with an https --public-url (http only on loopback).")
        case .failure(let error):
            throw error
        }
    }

    /// Sealed to the device when there is one (every type but registration); plain otherwise.
    package func payload(for envelope: OperationEnvelope, device: EnrolledDevice?) throws -> OperationPayload {
        guard let device else {
            // An authentication always has a phone, except the sign-in page's stand-in for an
            // unknown user: sealed to a key nobody holds, so it looks like any other.
            if envelope.type == .authentication {
                let throwaway = DevicePublicKeys(signing: P256.Signing.PrivateKey().publicKey,
                                                 agreement: Curve25519.KeyAgreement.PrivateKey().publicKey)
                return try .sealed(envelope, to: throwaway)
            }
            return .plain(envelope)
        }
        let keys = try DevicePublicKeys(signingKey: device.signingKey, agreementKey: device.agreementKey)
        return try .sealed(envelope, to: keys)
    }

    package func universalLink(_ payload: OperationPayload) -> OperationLink {
        .universalLink(base: publicURL.appendingPathComponent("oob").appendingPathComponent("open"), payload: payload)
    }

    /// The universal link of a stored operation, sealed afresh (for its QR code).
    package func link(of operation: OutOfBandOperation) async throws -> OperationLink {
        var device: EnrolledDevice?
        if let id = operation.deviceID { device = try await store.phone(id) }
        return universalLink(try payload(for: envelope(operation), device: device))
    }

    // MARK: Reading

    package func find(_ id: UUID) async throws -> OutOfBandOperation {
        guard let operation = try await OutOfBandOperation.stored(id, on: database) else { throw DomainError.notFound("operation") }
        return operation
    }

    /// The operation now: one past its expiry is marked `expired` first.
    package func current(_ id: UUID) async throws -> OutOfBandOperation {
        let operation = try await find(id)
        guard let status = OperationStatus(rawValue: operation.status), status.acceptsAnswer, now >= operation.expiresAt else {
            return operation
        }
        try await expire(id)
        return try await find(id)
    }

    package func view(_ id: UUID) async throws -> OperationView {
        try OperationView(try await current(id))
    }

    // MARK: Answering

    /// Checks a phone's signed answer and applies it; returns the operation after it.
    ///
    /// A tampered, replayed, late or wrong-device answer changes nothing, except that a late
    /// one marks the operation `expired` and a wrong number (signed by the right device) fails it.
    package func redeem(_ id: UUID, body: Data) async throws -> OperationView {
        let request: RedeemRequest
        do { request = try RedeemRequest(json: body) } catch {
            throw DomainError(.badRequest, code: "invalid_answer", reason: error.description, field: error.field)
        }
        let operation = try await current(id)
        guard let status = OperationStatus(rawValue: operation.status) else { throw Self.unreadable("status", operation.status) }
        guard status.acceptsAnswer else {
            if status == .expired {
                throw DomainError(.gone, code: "expired", reason: "This request expired at \(Self.time(operation.expiresAt)); start again on the other screen.")
            }
            throw DomainError(.conflict, code: "already_answered", reason: "This request was already answered (\(status.rawValue)); nothing changed.")
        }
        let issued = IssuedOperation(envelope: try envelope(operation), correctNumber: operation.correctNumber, deviceID: operation.deviceID)
        var keys: DevicePublicKeys?
        if let device = try await store.enrolledPhone(request.deviceID) {
            keys = try? DevicePublicKeys(signingKey: device.signingKey, agreementKey: device.agreementKey)
        }
        let verified: VerifiedAnswer
        do {
            verified = try AnswerVerifier.verify(request, issued: issued, deviceKeys: keys, now: now)
        } catch .wrongNumber(let typed) {
            metrics.answersRefused("wrong_number").increment()
            try await countWrongCode(id, typed: typed, deviceID: request.deviceID)
            throw DomainError(.storage, code: "unreachable", reason: "A wrong code was counted without an answer.")  // countWrongCode always throws
        } catch {
            metrics.answersRefused(error.code).increment()
            if error.endsOperation {
                let final: OperationStatus = if case .expired = error { .expired } else { .failed }
                _ = try await move(id, from: [.created, .dispatched], to: final, answeredBy: request.deviceID, failure: error)
            }
            throw DomainError(Self.kind(of: error), code: error.code, reason: error.description)
        }
        let next = try status.after(verified.event)
        // An approval is redeemed and its effect applied in one transaction, so it ends `succeeded`.
        let final: OperationStatus = next == .redeemed ? .succeeded : next
        let type = OperationType(rawValue: operation.type)
        let now = self.now
        let moved = try await writes.write { try await database.inTransaction { db -> Bool in
            let store = OutOfBandStore(db)
            guard try await Self.move(id, from: [.created, .dispatched], to: final, answeredBy: request.deviceID, failure: nil,
                                      now: now, on: db) else { return false }
            if verified.decision == .report {
                try await Self.recordReport(operation, id: id, deviceID: request.deviceID, now: now, on: db)
                return true
            }
            guard verified.decision == .approve else { return true }
            switch type {
            case .registration:
                guard let keys = verified.enrolledKeys else { return true }
                let device = try await store.phone(request.deviceID) ?? EnrolledDevice()
                device.id = request.deviceID
                device.user = operation.user
                device.signingKey = keys.signingKeyText
                device.agreementKey = keys.agreementKeyText
                device.pushToken = nil
                device.pushTokenActive = false
                device.enrolledAt = now
                device.deregisteredAt = nil
                device.fleetDeviceID = operation.fleetDeviceID
                try await store.save(device)
            case .deregistration:
                try await store.deregister(phone: request.deviceID, at: now)
            default:
                break
            }
            return true
        } }
        guard moved else {
            throw DomainError(.conflict, code: "already_answered", reason: "This request was answered by another response first; nothing changed.")
        }
        await notifier.runChanged(id, on: database)
        metrics.operationsFinished(final.rawValue).increment()
        return try OperationView(try await find(id))
    }

    /// Counts a wrong code: 422 `wrong_code` with the tries left, or, at the last try, the
    /// operation fails for good (403 `wrong_number`). Always throws.
    private func countWrongCode(_ id: UUID, typed: Int, deviceID: String) async throws {
        guard let attempts = try await store.countWrongCode(id) else {
            throw DomainError(.conflict, code: "already_answered", reason: "This request was already answered; nothing changed.")
        }
        if case .tryAgain(let left) = CodeTries.verdict(afterWrong: attempts) {
            throw DomainError(.invalidField, code: "wrong_code",
                           reason: "\(typed) is not the code on the other screen; \(left) \(left == 1 ? "try" : "tries") left.", field: "number")
        }
        let rejection = AnswerRejection.wrongNumber(typed)
        _ = try await move(id, from: [.created, .dispatched], to: .failed, answeredBy: deviceID, failure: rejection)
        throw DomainError(.forbidden, code: rejection.code,
                       reason: "\(typed) is not the code on the other screen, and no tries are left: the request failed; start again.")
    }

    /// "This was not me": marks the operation, locks out-of-band sign-in for its user, and
    /// queues the `operation.suspicious` webhook, in the redeem's transaction.
    private static func recordReport(_ operation: OutOfBandOperation, id: UUID, deviceID: String, now: Date, on db: DatabaseHandle) async throws {
        let store = OutOfBandStore(db)
        try await store.markReported(id, at: now)
        if try await store.lock(of: operation.user) == nil {
            try await store.create(OutOfBandLock(user: operation.user, operationID: id, lockedAt: now))
        }
        let suspicious = SuspiciousOperation(id: id, type: operation.type, user: operation.user, deviceID: deviceID, reportedAt: now)
        try await WebhookOutbox.enqueue("operation.suspicious", run: nil, deviceID: nil, operation: suspicious, on: db, now: now)
    }

    /// Cancels an operation that has not ended (the web page was closed, the caller gave up).
    package func cancel(_ id: UUID) async throws -> OperationView {
        let operation = try await current(id)
        guard let status = OperationStatus(rawValue: operation.status), !status.isFinal else {
            throw DomainError(.conflict, code: "already_finished", reason: "The operation already ended (\(operation.status)).")
        }
        guard try await move(id, from: [.created, .dispatched, .redeemed], to: .cancelled) else {
            throw DomainError(.conflict, code: "already_finished", reason: "The operation ended while it was being cancelled.")
        }
        return try await view(id)
    }

    /// Marks one operation expired if it still waits for an answer.
    @discardableResult
    package func expire(_ id: UUID) async throws -> Bool {
        try await move(id, from: [.created, .dispatched], to: .expired, failure: .expired(at: now), onlyIfDue: true)
    }

    /// Marks every operation past its expiry `expired`; returns how many.
    @discardableResult
    package func expireDue() async throws -> Int {
        let ids = try await store.expireDue(at: now, through: writes)
        for case let id? in ids {
            await notifier.runChanged(id, on: database)
            metrics.operationsFinished(OperationStatus.expired.rawValue).increment()
        }
        return ids.count
    }

    // MARK: Status changes

    private func move(_ id: UUID, from: [OperationStatus], to: OperationStatus, answeredBy: String? = nil,
                      failure: AnswerRejection? = nil, onlyIfDue: Bool = false) async throws -> Bool {
        let now = self.now
        let moved = try await writes.write {
            try await Self.move(id, from: from, to: to, answeredBy: answeredBy, failure: failure, now: now, onlyIfDue: onlyIfDue, on: database)
        }
        if moved {
            await notifier.runChanged(id, on: database)
            if to.isFinal { metrics.operationsFinished(to.rawValue).increment() }
        }
        return moved
    }

    /// One conditional UPDATE (``OutOfBandStore/move(_:from:to:answeredBy:failure:now:onlyIfDue:)``);
    /// returns whether it changed the row.
    package static func move(_ id: UUID, from: [OperationStatus], to: OperationStatus, answeredBy: String?, failure: AnswerRejection?,
                     now: Date, onlyIfDue: Bool = false, on database: DatabaseHandle) async throws -> Bool {
        try await OutOfBandStore(database).move(id, from: from, to: to, answeredBy: answeredBy, failure: failure, now: now, onlyIfDue: onlyIfDue)
    }

    /// A stored operation whose `column` holds a value this version does not know.
    package static func unreadable(_ column: String, _ value: String) -> DomainError {
        DomainError(.storage, code: "unreadable_operation", reason: "A stored operation's \(column) is '\(value)', which this server does not know.")
    }

    /// The kind of refusal an answer's rejection is (each one status on the wire).
    package static func kind(of rejection: AnswerRejection) -> DomainError.Kind {
        switch rejection {
        case .expired: .gone
        case .operationMismatch, .registrationKeysMissing, .numberMissing, .numberNotExpected: .invalidField
        case .challengeMismatch, .wrongDevice, .unknownDevice, .badSignature, .wrongNumber: .forbidden
        }
    }

    package static func time(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    private static func encodeList(_ list: [String]) -> String {
        String(decoding: (try? JSONEncoder.api.encode(list)) ?? Data("[]".utf8), as: UTF8.self)
    }

    private static func decodeList(_ text: String) -> [String] {
        (try? JSONDecoder.api.decode([String].self, from: Data(text.utf8))) ?? []
    }

    package init(database: DatabaseHandle, clock: ServerClock, publicURL: URL, developerMode: Bool, metrics: ServerMetrics, notifier: RunChangeNotifier, writes: WriteGate, push: PushSender?, linkScheme: String) {
        self.database = database
        self.clock = clock
        self.publicURL = publicURL
        self.developerMode = developerMode
        self.metrics = metrics
        self.notifier = notifier
        self.writes = writes
        self.push = push
        self.linkScheme = linkScheme
    }
}
