import Foundation
import HandoverProtocol
import HandoverSchema

/// Applies ``HandoverProtocol/DeviceStatus/on(_:)`` to stored devices: saves the new status with
/// its reason, appends the step to the device's history, and writes the webhook event a change
/// owes, all in the caller's transaction. The statements are ``DeviceStore``'s.
package enum DeviceLifeCycle {
    /// Who acted, as the history records it, when the server decided by itself.
    package static let serverActor = "server"

    /// Applies `event` to the device; returns the state machine's decision (refusals change
    /// nothing and are not recorded).
    ///
    /// On SQLite the caller's transaction must already have written (a read first and a write
    /// later fail as busy when another writer came between).
    @discardableResult
    /// With an `mdm` policy, a device that goes out of service or overdue owes the MDM a command,
    /// written here too.
    package static func apply(_ event: DeviceStatus.Event, to deviceID: UUID, run: UUID? = nil, reason: String? = nil,
                              actor: String = serverActor, mdm: MDMPolicy? = nil, on db: DatabaseHandle, now: Date) async throws -> DeviceStatus.Transition {
        // Lock the row before reading it (PostgreSQL), so the decision is made on its latest status.
        guard let from = try await DeviceStore(db).lockStatus(of: deviceID) else { throw DomainError.notFound("device") }
        let transition = from.on(event)
        guard case .move = transition else { return transition }
        try await move([Step(device: deviceID, from: from, run: run, reason: reason, actor: actor)], on: event, mdm: mdm, on: db, now: now)
        return transition
    }

    /// One device's step, for ``move(_:on:mdm:on:now:)``: the status it was read in (under its
    /// lock, ``lock(_:on:)``), and what the history records.
    package struct Step: Sendable, Equatable {
        package var device: UUID
        package var from: DeviceStatus
        package var run: UUID?
        package var reason: String?
        package var actor: String

        package init(device: UUID, from: DeviceStatus, run: UUID? = nil, reason: String? = nil, actor: String = DeviceLifeCycle.serverActor) {
            self.device = device
            self.from = from
            self.run = run
            self.reason = reason
            self.actor = actor
        }
    }

    /// Applies `event` to devices the caller has locked and read (each device once): their new
    /// statuses in one statement per shape of change, their history in one, and what a change
    /// owes besides (an MDM command, a webhook) device by device. Refused steps change nothing.
    package static func move(_ steps: [Step], on event: DeviceStatus.Event, mdm: MDMPolicy? = nil, on db: DatabaseHandle, now: Date) async throws {
        let store = DeviceStore(db)
        // A person's note (back in service, retired) replaces the status's reason; only a return
        // to service starts the overdue clock again.
        var note: String?, returns = false
        switch event {
        case .backInService(let text):
            note = text.trimmingCharacters(in: .whitespacesAndNewlines)
            returns = true
        case .retire(let text):
            note = text.trimmingCharacters(in: .whitespacesAndNewlines)
        default:
            break
        }
        let moves = steps.compactMap { step -> (step: Step, to: DeviceStatus)? in
            guard case .move(let to) = step.from.on(event) else { return nil }
            return (step, to)
        }
        guard !moves.isEmpty else { return }
        // One UPDATE per shape of change (``DeviceStore/setStatuses(_:on:note:returns:now:)``).
        try await store.setStatuses(moves, on: event, note: note, returns: returns, now: now)
        try await store.writeHistory(moves.map { move in
            DeviceHistoryLog.Step(device: move.step.device, event: event.name, from: move.step.from, to: move.to, run: move.step.run,
                                  reason: move.step.reason, note: note, actor: move.step.actor)
        }, now: now)

        // Back in service (by a person, or by a completed hand-over where an MDM is configured):
        // whatever the MDM was still owed for the device is not sent, and the Lost Mode Handover
        // put on it is lifted.
        let returned = moves.filter { $0.to == .inService && $0.step.from != .inService }
        if !returned.isEmpty, note != nil || mdm != nil {
            for (actor, group) in Dictionary(grouping: returned, by: \.step.actor) {
                try await OwedMDMCommands.cancel(for: group.map(\.step.device), deviceStatus: .inService, actor: actor, on: db, now: now)
                try await OwedMDMCommands.liftLostMode(for: group.map(\.step.device), actor: actor, on: db, now: now)
            }
        }
        for (step, to) in moves where to != step.from {
            if to.needsAttention, let mdm, let device = try await Device.stored(step.device, on: db) {
                try await mdm.enqueue(for: device, trigger: to, on: db, now: now)
            }
            switch to {
            case .inService where step.from.needsAttention:
                try await WebhookOutbox.enqueue("device.back_in_service", run: nil, deviceID: step.device, reason: note, on: db, now: now)
            case .overdue:
                try await WebhookOutbox.enqueue("device.overdue", run: nil, deviceID: step.device, reason: step.reason, on: db, now: now)
            default:
                break
            }
        }
    }

    /// Moves the devices of runs that just finished (in service again, or out of service with the
    /// apps that stayed signed in), as the last writes of the caller's transaction: holding a
    /// device's row, it never waits for a run's. The devices are locked in id order in one
    /// statement and moved in a few; a device with two runs finishing here moves for each, in
    /// run id order.
    package static func moveDevices(after finished: [FinishedRun], mdm: MDMPolicy? = nil, on db: DatabaseHandle, now: Date) async throws {
        guard !finished.isEmpty else { return }
        let statuses = try await DeviceStore(db).lock(Set(finished.map(\.device)))
        var firsts = Set<UUID>()
        var completed: [Step] = [], failed: [Step] = [], later: [FinishedRun] = []
        for run in finished.sorted(by: { ($0.device.uuidString, $0.run.uuidString) < ($1.device.uuidString, $1.run.uuidString) }) {
            guard let from = statuses[run.device] else { continue }
            guard firsts.insert(run.device).inserted else {
                later.append(run)
                continue
            }
            let step = Step(device: run.device, from: from, run: run.run, reason: run.reason)
            if run.state == .completed { completed.append(step) } else { failed.append(step) }
        }
        try await move(completed, on: .runCompleted, mdm: mdm, on: db, now: now)
        try await move(failed, on: .runFailed, mdm: mdm, on: db, now: now)
        for run in later {
            try await apply(run.state == .completed ? .runCompleted : .runFailed, to: run.device, run: run.run, reason: run.reason, mdm: mdm, on: db, now: now)
        }
    }

    /// Puts a device that is out of service or overdue back in service: an admin's decision,
    /// with a note saying why that is safe. Throws ``DomainError``: 404 for an unknown device,
    /// 422 naming `note` when it is empty or too long, 409 `not_out_of_service` otherwise.
    package static func returnToService(_ deviceID: UUID, note: String, actor: String, on database: DatabaseHandle, now: Date) async throws -> Device {
        let trimmed = try checkedNote(note, saying: "say why the device may be handed on again (what was checked, who decided)")
        return try await database.inTransaction { db in
            // `apply` writes first: it takes the row (and, on SQLite, the database) before reading.
            let transition = try await apply(.backInService(note: trimmed), to: deviceID, actor: actor, on: db, now: now)
            if case .refuse(let refusal) = transition {
                let status = try await Device.stored(deviceID, on: db)?.status.rawValue ?? "unknown"
                throw DomainError(.conflict, code: refusal.rawValue,
                                  reason: "The device is \(status.replacingOccurrences(of: "_", with: " ")); only a device out of service or overdue goes back in service.")
            }
            guard let device = try await Device.stored(deviceID, on: db) else { throw DomainError.notFound("device") }
            return device
        }
    }

    /// A person's note for a step of the device's history, trimmed; throws ``DomainError`` naming
    /// `note` (422) when it is empty (`note_required`: `saying` tells what to write), longer than
    /// ``HandoverProtocol/DeviceStatus/noteLimit``, or holds control characters.
    package static func checkedNote(_ note: String, saying: String) throws -> String {
        let trimmed = note.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw DomainError(.invalidField, code: DeviceStatus.Refusal.noteRequired.rawValue,
                              reason: "note: \(saying); it is kept in the device's history.", field: "note")
        }
        guard trimmed.count <= DeviceStatus.noteLimit else {
            throw DomainError.invalid("note", "\(trimmed.count) characters; at most \(DeviceStatus.noteLimit).")
        }
        guard !trimmed.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }) else {
            throw DomainError.invalid("note", "control characters are not accepted (line breaks and tabs are).")
        }
        return trimmed
    }

    /// A device's history, newest first.
    package static func history(of deviceID: UUID, limit: Int = 100, on database: DatabaseHandle) async throws -> [DeviceHistoryEntry] {
        try await DeviceStore(database).history(of: deviceID, limit: limit)
    }
}
