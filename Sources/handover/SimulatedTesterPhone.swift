import DeviceSimulator
import Foundation
import HandoverServer

/// Lets the server's conformance tester drive a ``DeviceSimulator/TesterPhone``.
struct SimulatedTesterPhone: TesterSimulator {
    let phone: TesterPhone

    /// - Parameter speed: how many times faster than real time the phone runs; the server's
    ///   clock must run at the same speed.
    init(speed: Int = 1) {
        phone = TesterPhone(clock: speed == 1 ? ContinuousClock() : SpedUpClock(speed: speed))
    }

    var behaviours: [String] { AppBehaviour.allCases.map(\.rawValue) }

    func installApp(behaviour: String, allowedCallbackHost: String) async throws -> SimulatedTesterApp {
        guard let behaviour = AppBehaviour(rawValue: behaviour) else { throw SimulatorError("no behaviour '\(behaviour)'") }
        let app = try await phone.installApp(behaviour: behaviour, allowedCallbackHost: allowedCallbackHost)
        return SimulatedTesterApp(actionURL: app.actionURL, declaresAllowlist: app.declaresAllowlist)
    }

    func open(_ link: String) async { await phone.open(link) }
}
