import Foundation
import HandoverProtocol
import HandoverSchema
import Logging
import MDMConnectors

/// Sends the MDM commands that are due (the `mdm_commands` outbox), up to ``width`` at a time.
///
/// Each is leased first with a conditional update, so two instances never send the same attempt;
/// a crash mid-attempt leaves it pending, and after its lease (a minute) the MDM is asked whether
/// it has the command already before it is sent again.
/// - The MDM accepted it: sent, with its answer, in the device's history.
/// - 429: tried again after the MDM's Retry-After.
/// - No answer, a 5xx, a 401 after the token was renewed once: back-off (2, 4, 8 … s), then
///   failed after ``MDMConfiguration/maxAttempts``, in the history and on the dashboard.
/// - Refused (no such device, a 400): failed at once.
/// In a dry run, what would be sent is recorded instead, and nothing is sent.
///
/// The statements are ``MDMCommandStore``'s (the outbox) and ``DeviceStore``'s (what a device
/// owes, and its history).
package struct MDMCommandDispatcher: Sendable {
    package let database: DatabaseHandle
    package let configuration: MDMConfiguration
    /// Nil for the webhook connector: the command goes to the webhook outbox.
    package let connector: (any MDMConnector)?
    package let clock: ServerClock
    package let logger: Logger
    package var width = 8

    /// The outbox's lease, count and record (shared with the other kinds of delivery). A lease is
    /// a minute: an MDM's API may be slow, and a crash mid-attempt is found by asking the MDM.
    private var outbox: DeliveryOutbox {
        DeliveryOutbox(table: MDMCommand.schema, pendingStatus: MDMCommandState.pending.rawValue, lease: 60,
                       maxAttempts: configuration.maxAttempts)
    }

    /// The outbox's statements on `database`.
    private func store(_ database: DatabaseHandle) -> MDMCommandStore {
        MDMCommandStore(database, outbox: outbox)
    }

    @discardableResult
    package func deliverDue(limit: Int = 100) async throws -> Int {
        let now = clock.now()
        let due = try await store(database).due(at: now, limit: limit)
        return try await countConcurrently(due, width: width) { try await lease($0, now: now) }
    }

    private func lease(_ command: MDMCommand, now: Date) async throws -> Bool {
        guard let id = command.id else { return false }
        // The attempt is counted as it is leased: one that a crash cuts off still counts.
        let leased = try await store(database).lease(id, version: command.version, at: now)
        let device = leased == .taken ? nil : try await Device.stored(command.deviceID, on: database)
        let step = MDMCommandRules.step(for: command.action, deviceStatus: device?.status, leased: leased)
        // The rules leave alone a command whose lease another pass took or whose device is gone.
        guard let device, step != .leftAlone else { return false }
        let attempt: Int
        switch step {
        case .leftAlone:
            return false
        case .cancel:
            try await database.inTransaction { db in
                _ = try await OwedMDMCommands.cancel(for: [command.deviceID], deviceStatus: .inService, actor: DeviceLifeCycle.serverActor,
                                                     on: db, now: clock.now())
            }
            return true
        case .refuse(let reason):
            try await record(.failure(.permanent(status: nil, detail: reason)), for: command, id: id, device: device, attempt: 1, request: nil)
            return true
        case .giveUp:
            try await record(.failure(.transient(status: nil, detail: "the last attempt was cut off by a server stop")), for: command, id: id,
                             device: device, attempt: configuration.maxAttempts, request: nil)
            return true
        case .send(let number):
            attempt = number
        }
        let request = MDMCommandRequest(action: command.action, deviceName: device.name, serialNumber: device.serialNumber,
                                        mdmDeviceID: device.mdmDeviceID, message: configuration.message,
                                        phoneNumber: configuration.phoneNumber, footnote: configuration.footnote,
                                        returnToService: configuration.returnToServiceWiFiProfile.map {
                                            ReturnToServiceProfiles(wifiProfile: $0, mdmProfile: configuration.returnToServiceMDMProfile)
                                        })
        var outcome: Result<String, MDMFailure>
        if configuration.dryRun {
            outcome = .success("dry run: would send " + (connector?.describe(request) ?? "a device.mdm_command webhook event"))
        } else if let connector {
            do {
                // The last attempt was cut off by a crash: the MDM may have the command already.
                if let since = command.inFlightSince,
                   let found = try await connector.findSent(request, since: since.addingTimeInterval(-5)) {
                    outcome = .success(found + " (its earlier attempt was interrupted; not sent again)")
                } else {
                    outcome = .success(try await connector.send(request))
                }
            } catch let failure as MDMFailure {
                outcome = .failure(failure)
            } catch {
                outcome = .failure(.transient(status: nil, detail: "\(error)"))
            }
        } else {
            outcome = .success("sent to the webhooks subscribed to device.mdm_command")
        }
        try await record(outcome, for: command, id: id, device: device, attempt: attempt, request: request)
        return true
    }

    private func record(_ outcome: Result<String, MDMFailure>, for command: MDMCommand, id: UUID, device: Device, attempt: Int,
                        request: MDMCommandRequest?) async throws {
        let finished = clock.now()
        let decision = MDMCommandRules.decide(outcome, attempt: attempt, at: finished, configuration: configuration, backoff: outbox.backoff)
        let (status, nextAttempt, answer, statusCode, failureText, history) =
            (decision.status, decision.nextAttempt, decision.answer, decision.statusCode, decision.failureText, decision.history)
        try await database.inTransaction { db in
            // The update first: on SQLite a transaction must write before it reads.
            try await store(db).record(id, attempt: attempt, status: status, statusCode: statusCode, failure: failureText,
                                       nextAttemptAt: nextAttempt, answer: answer, finished: finished)
            if connector == nil, status == .sent {
                try await WebhookOutbox.enqueue("device.mdm_command", run: nil, deviceID: command.deviceID,
                                                reason: "\(command.action.rawValue) \(request?.serialNumber ?? "")", on: db, now: finished)
            }
            if let (event, text) = history {
                try await DeviceStore(db).writeHistory([.init(device: command.deviceID, event: event, from: device.status, to: device.status,
                                                              reason: String(text.prefix(1000)))], now: finished)
            }
        }
        if case .failure(let failure) = outcome {
            logger.warning("MDM command failed", metadata: ["device": "\(device.name)", "attempt": "\(attempt)", "error": "\(failure.detail)"])
        }
    }

    package init(database: DatabaseHandle, configuration: MDMConfiguration, connector: (any MDMConnector)?, clock: ServerClock, logger: Logger) {
        self.database = database
        self.configuration = configuration
        self.connector = connector
        self.clock = clock
        self.logger = logger
    }
}
