import Foundation
import HandoverProtocol
import MDMConnectors

/// What to do with an MDM command, as values (issue 65): ``MDMCommandDispatcher`` leases the
/// command, reads the device, asks ``step(for:deviceStatus:leased:)``, sends when told to, and
/// records what ``decide(_:attempt:at:configuration:backoff:)`` makes of the MDM's answer.
package enum MDMCommandRules {
    /// What a leased command comes to before anything is sent.
    package enum Step: Sendable, Equatable {
        /// Another pass or instance has it, or its device is gone: nothing to do.
        case leftAlone
        /// A remedy (lock, Lost Mode, erase) to a device back in service: cancelled, with the
        /// device's other owed remedies.
        case cancel
        /// Lost Mode's lifting to a device out of service again: not sent, it stays in Lost Mode.
        case refuse(String)
        /// The last attempt allowed was cut off by a stop: given up.
        case giveUp
        /// Send it: attempt `n`.
        case send(attempt: Int)
    }

    /// The device's state now decides, not its state when the command was written: one back in
    /// service is locked, put in Lost Mode or erased by no one; Lost Mode is lifted only from a
    /// device still in service.
    package static func step(for action: MDMAction, deviceStatus: DeviceStatus?, leased: DeliveryOutbox.Leased) -> Step {
        guard leased != .taken, let deviceStatus else { return .leftAlone }
        if action.isRemedy, deviceStatus == .inService { return .cancel }
        if !action.isRemedy, deviceStatus.needsAttention {
            return .refuse("not sent: the device is \(deviceStatus.rawValue.replacingOccurrences(of: "_", with: " ")) again, so it stays in Lost Mode")
        }
        guard case .attempt(let attempt) = leased else { return .giveUp }
        return .send(attempt: attempt)
    }

    /// What an attempt's outcome makes of the command.
    package struct Decision: Sendable {
        package var status = MDMCommandState.pending
        package var nextAttempt: Date
        package var answer: String?
        package var statusCode: Int?
        package var failureText: String?
        /// The step the device's history records, and its text.
        package var history: (event: DeviceHistoryEvent, text: String)?
    }

    /// Sent (or, in a dry run, recorded as what would be sent); 429: again after the MDM's
    /// Retry-After; no answer, a 5xx, a 401 after the token was renewed once: again after the
    /// back-off, failed after ``MDMConfiguration/maxAttempts``; refused: failed at once.
    package static func decide(_ outcome: Result<String, MDMFailure>, attempt: Int, at finished: Date, configuration: MDMConfiguration,
                               backoff: DeliveryOutbox.Backoff) -> Decision {
        var decision = Decision(nextAttempt: finished)
        switch outcome {
        case .success(let text):
            decision.status = configuration.dryRun ? .dryRun : .sent
            decision.answer = String(text.prefix(1000))
            decision.history = (.mdmCommandSent, text)
        case .failure(let failure):
            decision.statusCode = failure.status
            decision.failureText = String(failure.detail.prefix(500))
            switch failure {
            case .retryAfter(let seconds, _) where attempt < configuration.maxAttempts:
                decision.nextAttempt = finished.addingTimeInterval(TimeInterval(seconds))
            case .transient where attempt < configuration.maxAttempts:
                decision.nextAttempt = finished.addingTimeInterval(backoff.delay(afterAttempt: attempt))
            default:
                decision.status = .failed
                decision.history = (.mdmCommandFailed, "after \(attempt) attempt\(attempt == 1 ? "" : "s"): \(failure.detail)")
            }
        }
        return decision
    }
}
