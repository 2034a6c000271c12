import Foundation
import HandoverProtocol
import LinkCallbacks
import NIOHTTP1

/// One phone's launcher in the storm: at its arrival time it checks the phone out to the person
/// its badge names (when it has one), starts its logout run, answers each app's link as the app
/// would (after the app's logout time), and, for an app that stalls, waits for the server to
/// reissue the link after its deadline and answers the new one.
struct ShiftChangeLauncher: Sendable {
    var base: String
    var baseIndex: Int
    var deviceID: UUID
    var key: String
    /// The badge it checks the phone out with; nil: no check-out.
    var badge: String?
    /// Whether it checks the phone out right before its run; otherwise the bench checked it out
    /// before the window (``StormTally/Counts/checkedOutBefore``).
    var checkOutInWindow = false
    /// The run's body: the storm's apps by id (a server may have other target apps too).
    var runBody: Data
    var arrival: Duration
    /// The apps' deadline (the registry's `deadlineSeconds`).
    var deadline: Duration
    /// Per app, in the run's order: what it does, its logout time, whether its callback takes
    /// the browser page, and whether it is reported twice.
    var parts: [(part: ShiftChangePlan.AppPart, appTime: Duration, browser: Bool, duplicate: Bool)]
    let http: BenchHTTP
    let tally: StormTally

    func play(start: ContinuousClock.Instant) async {
        try? await Task.sleep(until: start + arrival, clock: .continuous)
        // The hand-over happens whether or not the check-out was refused.
        let checkedOut = checkOutInWindow ? await checkOut() : tally.read { $0.checkedOutBefore[deviceID] }
        let answer: BenchHTTP.Answer
        do {
            // A server shedding new work (503 + Retry-After) is asked again as the SDK would; the
            // start carries its idempotency key, as the SDK's does.
            let (last, tries) = try await http.sendWaitingOutBusy(.POST, "\(base)/api/v1/devices/\(deviceID.uuidString.lowercased())/logout-runs",
                                                                  key: key, json: runBody,
                                                                  headers: [("Idempotency-Key", "\"\(UUID().uuidString.lowercased())\"")])
            answer = last
            if tries > 1 { tally.update { $0.startsRetried += 1; $0.busyRetries += tries - 1 } }
        } catch {
            tally.update {
                $0.transportErrors += 1
                $0.devicesDone += 1
                $0.refusals["run: \(Self.kind(of: error))", default: 0] += 1
                if let checkedOut { $0.checkedOut.append(checkedOut) }
            }
            return
        }
        guard answer.status == 201, let run = try? answer.decode(LogoutRunView.self) else {
            tally.update {
                $0.runsRefused += 1
                $0.devicesDone += 1
                $0.refusals["run \(answer.status)", default: 0] += 1
                if let checkedOut { $0.checkedOut.append(checkedOut) }
            }
            return
        }
        // The run's first turn is the try the server admitted: the back-off before it is not the server's.
        let sent = answer.sent
        let stalls = parts.filter { $0.part == .stalls }.count
        tally.update {
            if var checkedOut {
                checkedOut.run = run.id
                $0.checkedOut.append(checkedOut)
            }
            $0.stallsPlayed += stalls
            $0.runsStarted += 1
            $0.runStartMilliseconds.append(answer.milliseconds)
            $0.runs.append((run.id, key, baseIndex))
        }
        let items = run.items.sorted { $0.position < $1.position }
        // A stalled app's first deadline counts from its turn: the run's start, or the last
        // answer of an app before it. The server took both at some moment before this launcher
        // saw them acknowledged, so from these the lateness measured is an upper bound.
        var turn = sent
        var stalled: [(item: LogoutRunView.Item, appTime: Duration, browser: Bool, due: ContinuousClock.Instant)] = []
        for (item, part) in zip(items, parts) {
            switch part.part {
            case .stalls:
                stalled.append((item, part.appTime, part.browser, turn + deadline))
            case .answers, .fails:
                try? await Task.sleep(for: part.appTime)
                if await answerLink(item.link, run: run.id, item: item.id, success: part.part == .answers, browser: part.browser,
                                    duplicate: part.duplicate) {
                    turn = .now
                }
            }
        }
        for (item, appTime, browser, due) in stalled {
            await awaitReissue(of: item, run: run.id, due: due, appTime: appTime, browser: browser)
        }
        tally.update { $0.devicesDone += 1 }
    }

    /// Checks the phone out to the person its badge names (`POST …/custody` with the device's
    /// key), timing it; the phone to verify after the storm when the server checked it out.
    func checkOut() async -> StormTally.CheckedOut? {
        guard let badge else { return nil }
        let answer: BenchHTTP.Answer
        do {
            let (last, tries) = try await http.sendWaitingOutBusy(.POST, "\(base)/api/v1/devices/\(deviceID.uuidString.lowercased())/custody",
                                                                  key: key, json: try JSONEncoder().encode(CheckOutBody(badge: badge)))
            answer = last
            if tries > 1 { tally.update { $0.busyRetries += tries - 1 } }
        } catch {
            tally.update { $0.transportErrors += 1; $0.checkOutsRefused += 1; $0.refusals["check-out: \(Self.kind(of: error))", default: 0] += 1 }
            return nil
        }
        guard answer.status == 201 else {
            tally.update {
                $0.checkOutsRefused += 1
                $0.checkOutMilliseconds.append(answer.milliseconds)
                $0.refusals["check-out \(answer.status)", default: 0] += 1
            }
            return nil
        }
        tally.update { $0.checkOutsDone += 1; $0.checkOutMilliseconds.append(answer.milliseconds) }
        return StormTally.CheckedOut(device: deviceID, badge: badge, run: nil)
    }

    /// The body of a check-out by badge (`CheckOutInput`).
    private struct CheckOutBody: Encodable {
        var badge: String
    }

    /// Waits until the item's deadline, reads the run (every 250 ms, as a launcher polls) until the server has reissued
    /// the link, and answers the new link. The lateness is from `due` (the earliest the deadline
    /// can be) to the answer that showed the reissue.
    private func awaitReissue(of item: LogoutRunView.Item, run: UUID, due: ContinuousClock.Instant, appTime: Duration,
                              browser: Bool) async {
        try? await Task.sleep(until: due, clock: .continuous)
        let giveUp = due + .seconds(30)
        while ContinuousClock.now < giveUp {
            if let answer = try? await http.send(.GET, "\(base)/api/v1/logout-runs/\(run.uuidString.lowercased())", key: key),
               answer.isSuccess, let view = try? answer.decode(LogoutRunView.self),
               let now = view.items.first(where: { $0.id == item.id }), now.attempts > item.attempts || !now.isPending {
                let late = due.duration(to: .now)
                let lateness = Double(late.components.seconds) * 1000 + Double(late.components.attoseconds) / 1e15
                tally.update { $0.deadlinesFired += 1; $0.latenessMilliseconds.append(lateness) }
                guard now.isPending else { return }
                try? await Task.sleep(for: appTime)
                await answerLink(now.link, run: run, item: item.id, success: true, browser: browser, duplicate: false)
                return
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        tally.update { $0.deadlinesMissed += 1 }
    }

    /// Sends the app's answer: the callback URL through the device API or the browser page.
    /// True when the server acknowledged it.
    @discardableResult
    private func answerLink(_ link: String?, run: UUID, item: UUID, success: Bool, browser: Bool, duplicate: Bool) async -> Bool {
        guard let link, let ulc = try? UniversalLinkCallback(parsing: link) else {
            tally.update { $0.refusals["no link", default: 0] += 1 }
            return false
        }
        let callback = success ? ulc.success : ulc.error
        do {
            let answer = try await report(callback, run: run, browser: browser)
            let acknowledged = answer.isSuccess ? StormTally.Acknowledged(run: run, item: item, succeeded: success) : nil
            tally.callback(answer.milliseconds, acknowledged: acknowledged, browser: browser,
                           refusal: acknowledged == nil ? "callback \(answer.status)" : nil)
            guard acknowledged != nil, duplicate else { return acknowledged != nil }
            let again = try await report(callback, run: run, browser: false)
            tally.update {
                if again.status == 409 { $0.duplicatesRefused += 1 } else { $0.duplicatesAccepted += 1 }
            }
            return true
        } catch {
            tally.update { $0.transportErrors += 1; $0.refusals["callback: \(Self.kind(of: error))", default: 0] += 1 }
            return false
        }
    }

    /// A transport error in a few words (`HTTPClientError.deadlineExceeded`).
    static func kind(of error: any Error) -> String {
        "\(type(of: error)).\(String(describing: error).prefix(60))"
    }

    private func report(_ callback: URL, run: UUID, browser: Bool) async throws -> BenchHTTP.Answer {
        if browser {
            // The callback page, on this launcher's instance (same path and query).
            var components = URLComponents(url: callback, resolvingAgainstBaseURL: false)
            components?.scheme = nil
            components?.host = nil
            components?.port = nil
            return try await http.send(.GET, base + (components?.string ?? callback.path))
        }
        let body = try JSONEncoder().encode(CallbackReport(url: callback.absoluteString))
        return try await http.send(.POST, "\(base)/api/v1/logout-runs/\(run.uuidString.lowercased())/callbacks", key: key, json: body)
    }
}
