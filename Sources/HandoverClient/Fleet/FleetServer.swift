import Foundation
import HandoverProtocol
import OpenAPIRuntime
import OpenAPIURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A device's connection to the Handover server: starts logout runs, reads them, and reports
/// the callbacks the launcher receives as universal links.
///
/// ```swift
/// let server = FleetServer(baseURL: URL(string: "https://handover.example.com")!,
///                          deviceID: deviceID, deviceKey: keychain.deviceKey)
/// let run = try await server.startRun()
/// ```
///
/// Its calls are generated from the server's OpenAPI document (`scripts/generate-openapi.sh`)
/// and go through `URLSession`, so an iOS launcher links it without any server-side library.
public struct FleetServer: Sendable {
    /// The server's origin, such as `https://handover.example.com`.
    public let baseURL: URL
    /// This device's id in the registry.
    public let deviceID: UUID
    private let client: Client

    /// - Parameters:
    ///   - baseURL: the server's origin, such as `https://handover.example.com`.
    ///   - deviceID: this device's id in the registry.
    ///   - deviceKey: the device's API key (scope `device`), sent as a bearer token.
    ///   - session: the URL session requests go through.
    ///   - busyServer: how long to wait before sending a request again when the server is busy
    ///     (`503`, or `429` with `Retry-After`), honouring its `Retry-After`; `nil` reports a busy
    ///     server at once, as a ``FleetServerError/rejected(status:error:reason:)``. A request that
    ///     got no answer is sent again only when that is harmless: reading a run, reporting a
    ///     callback, and starting a run (it carries an idempotency key), not checking out.
    ///   - clock: the clock those waits are slept on (a `TestClock` in tests).
    public init(baseURL: URL, deviceID: UUID, deviceKey: String, session: URLSession = .shared,
                busyServer: BusyServerPolicy? = BusyServerPolicy(), clock: any Clock<Duration> = ContinuousClock()) {
        self.baseURL = baseURL
        self.deviceID = deviceID
        // The first middleware is the outermost: the busy server's answers reach the retry before
        // RefusalReader throws them away, and each attempt carries the bearer key.
        let retry: [any ClientMiddleware] = busyServer.map { [BusyServerRetry(policy: $0, clock: clock)] } ?? []
        self.client = Client(serverURL: baseURL,
                             transport: URLSessionTransport(configuration: .init(session: session)),
                             middlewares: [IdempotencyKeyQuoting(), BearerKey(key: deviceKey), RefusalReader()] + retry)
    }

    /// Starts a logout run of `apps` (registered app ids), or of every target app when `nil`.
    ///
    /// The start carries `idempotencyKey` (`Idempotency-Key`): when its answer is lost (the
    /// connection reset, the server's instance gone), it is sent again with the same key, and the
    /// server answers with the run the first sending started instead of starting a second one. A
    /// launcher that may be killed while it waits can keep the key and pass it again after its
    /// restart; otherwise the default, a new key, is right.
    ///
    /// - Throws: ``FleetServerError/rejected(status:error:reason:)`` with `idempotency_key_reused`
    ///   (422) when the key already started a run of other apps on this device.
    public func startRun(apps: [UUID]? = nil, idempotencyKey: UUID = UUID()) async throws(FleetServerError) -> FleetRun {
        let body = apps.map { Operations.CreateLogoutRun.Input.Body.json(.init(apps: $0.map(\.lowercasedText))) }
        let output = try await call {
            try await client.createLogoutRun(path: .init(deviceID: deviceID.lowercasedText),
                                             headers: .init(idempotencyKey: idempotencyKey.lowercasedText), body: body)
        }
        guard case .created(let created) = output, case .json(let run) = created.body else {
            throw undescribed(output)
        }
        return run
    }

    /// Reads a run as it is now.
    public func run(_ id: UUID) async throws(FleetServerError) -> FleetRun {
        let output = try await call { try await client.getLogoutRun(path: .init(runID: id.lowercasedText)) }
        guard case .ok(let ok) = output, case .json(let run) = ok.body else {
            throw undescribed(output)
        }
        return run
    }

    /// Reports a callback URL the launcher received, so the server records the item's outcome.
    public func reportCallback(run: UUID, url: URL) async throws(FleetServerError) -> CallbackReportOutcome {
        do throws(FleetServerError) {
            let output = try await call {
                try await client.reportCallback(path: .init(runID: run.lowercasedText), body: .json(CallbackReport(url: url.absoluteString)))
            }
            guard case .ok(let ok) = output, case .json(let result) = ok.body else {
                throw undescribed(output)
            }
            return .recorded(status: result.status)
        } catch .rejected(status: 409, error: _, reason: _) {
            return .alreadyRecorded
        } catch .rejected(status: 404, error: "unknown_callback", reason: _) {
            return .unknown
        }
    }

    /// Checks this device out to the person whose badge was read at the dock: the server looks the
    /// badge up at the organisation's directory (`HANDOVER_BADGE_LOOKUP_URL`) and keeps only a
    /// keyed digest of it.
    ///
    /// - Throws: ``FleetServerError/rejected(status:error:reason:)`` with `already_holds_a_device`
    ///   (409, the reason names the device the person still holds), `unknown_badge` (404), or
    ///   `badge_lookup_unavailable` (503, within 3 seconds): show the reason to the person.
    public func checkOut(badge: String) async throws(FleetServerError) -> FleetCustody {
        try await checkOut(.init(badge: badge))
    }

    /// Checks this device out to the person a Handover access token belongs to (one who signed in
    /// on the launcher itself).
    public func checkOut(accessToken: String) async throws(FleetServerError) -> FleetCustody {
        try await checkOut(.init(accessToken: accessToken))
    }

    private func checkOut(_ input: Components.Schemas.CheckOutInput) async throws(FleetServerError) -> FleetCustody {
        let output = try await call { try await client.checkOutDevice(path: .init(deviceID: deviceID.lowercasedText), body: .json(input)) }
        guard case .created(let created) = output, case .json(let record) = created.body,
              let id = UUID(uuidString: record.id), let device = UUID(uuidString: record.deviceID), let user = UUID(uuidString: record.userID),
              let method = FleetCustody.Method(rawValue: record.checkedOutBy.rawValue) else {
            throw undescribed(output)
        }
        return FleetCustody(id: id, deviceID: device, userID: user, personName: record.personName, personEmail: record.personEmail,
                            method: method, checkedOutAt: record.checkedOutAt)
    }

    /// A 2xx answer the document does not describe for the call.
    private func undescribed(_ output: some Sendable) -> FleetServerError {
        .unreadable(url: baseURL.absoluteString, detail: "an answer the API does not describe: \(output)")
    }

    /// Runs a generated call and turns what it throws into a ``FleetServerError``.
    private func call<Output>(_ operation: () async throws -> Output) async throws(FleetServerError) -> Output {
        do {
            return try await operation()
        } catch let error as ClientError {
            if let refusal = error.underlyingError as? FleetServerError { throw refusal }
            let origin = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
            let url = origin + (error.request?.path ?? "")
            if error.response == nil {
                throw .unreachable(url: url, detail: error.underlyingError.localizedDescription)
            }
            throw .unreadable(url: url, detail: "\(error.underlyingError)")
        } catch {
            throw .unreachable(url: baseURL.absoluteString, detail: error.localizedDescription)
        }
    }
}

extension UUID {
    /// The id as the API writes it: lowercase.
    var lowercasedText: String { uuidString.lowercased() }
}
