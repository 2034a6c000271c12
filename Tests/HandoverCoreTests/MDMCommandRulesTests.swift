import Foundation
@testable import HandoverCore
import HandoverProtocol
import MDMConnectors
import Testing

/// The MDM remediation's rules without a database (issue 65): what a leased command comes to by
/// its device's state now, and what the MDM's answer makes of it.
@Suite struct MDMCommandRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Every action, every device state (and a device gone), every lease outcome.
    @Test func aCommandIsSentOnlyWhileItsDeviceStillNeedsIt() {
        for action in MDMAction.allCases {
            for status in DeviceStatus.allCases.map(Optional.some) + [nil] {
                for leased in [DeliveryOutbox.Leased.taken, .exhausted, .attempt(1), .attempt(3)] {
                    let step = MDMCommandRules.step(for: action, deviceStatus: status, leased: leased)
                    let expected: MDMCommandRules.Step =
                        if leased == .taken || status == nil { .leftAlone }
                        else if action.isRemedy && status == .inService { .cancel }
                        else if !action.isRemedy && (status == .outOfService || status == .overdue) {
                            .refuse("not sent: the device is \(status!.rawValue.replacingOccurrences(of: "_", with: " ")) again, so it stays in Lost Mode")
                        } else if case .attempt(let n) = leased { .send(attempt: n) }
                        else { .giveUp }
                    #expect(step == expected, "\(action) \(String(describing: status)) \(leased)")
                }
            }
        }
        #expect(MDMCommandRules.step(for: .lostMode, deviceStatus: .inService, leased: .exhausted) == .cancel,
                "a remedy the device no longer needs is cancelled even when its last attempt was cut off")
        #expect(MDMCommandRules.step(for: .disableLostMode, deviceStatus: .overdue, leased: .attempt(1))
                == .refuse("not sent: the device is overdue again, so it stays in Lost Mode"))
    }

    @Test func anAnswerIsSentRetriedOrFailed() {
        var configuration = MDMConfiguration(connector: .webhook, action: .lostMode)
        configuration.maxAttempts = 3
        let backoff = DeliveryOutbox.Backoff.standard
        let sent = MDMCommandRules.decide(.success("queued 42"), attempt: 1, at: Self.now, configuration: configuration, backoff: backoff)
        #expect(sent.status == MDMCommandState.sent && sent.answer == "queued 42" && sent.history?.event == .mdmCommandSent && sent.nextAttempt == Self.now)

        var dry = configuration
        dry.dryRun = true
        #expect(MDMCommandRules.decide(.success("would send"), attempt: 1, at: Self.now, configuration: dry, backoff: backoff).status == MDMCommandState.dryRun)

        let later = MDMCommandRules.decide(.failure(.retryAfter(seconds: 120, detail: "HTTP 429")), attempt: 2, at: Self.now,
                                           configuration: configuration, backoff: backoff)
        #expect(later.status == MDMCommandState.pending && later.nextAttempt == Self.now.addingTimeInterval(120) && later.statusCode == 429 && later.history == nil)

        let again = MDMCommandRules.decide(.failure(.transient(status: 503, detail: "HTTP 503")), attempt: 2, at: Self.now,
                                           configuration: configuration, backoff: backoff)
        #expect(again.status == MDMCommandState.pending && again.nextAttempt == Self.now.addingTimeInterval(4) && again.failureText == "HTTP 503")

        let last = MDMCommandRules.decide(.failure(.transient(status: 503, detail: "HTTP 503")), attempt: 3, at: Self.now,
                                          configuration: configuration, backoff: backoff)
        #expect(last.status == MDMCommandState.failed && last.history?.event == .mdmCommandFailed && last.history?.text == "after 3 attempts: HTTP 503")

        let refused = MDMCommandRules.decide(.failure(.permanent(status: 404, detail: "no such device")), attempt: 1, at: Self.now,
                                             configuration: configuration, backoff: backoff)
        #expect(refused.status == MDMCommandState.failed && refused.history?.text == "after 1 attempt: no such device", "refused: failed at once")

        let long = MDMCommandRules.decide(.failure(.permanent(status: 400, detail: String(repeating: "x", count: 900))), attempt: 1, at: Self.now,
                                          configuration: configuration, backoff: backoff)
        #expect(long.failureText?.count == 500)
    }
}
