import HandoverCore
import HandoverProtocol

extension DashboardLayout {
    /// A tester round's status as a badge: passed good, failed bad, skipped muted, ready or
    /// waiting on hold.
    package static func badge(_ status: TesterRound.Status) -> HTML {
        let tone: Tone = switch status { case .passed: .good; case .failed: .bad; case .skipped: .muted; case .ready, .waiting: .wait }
        return badge(status.rawValue, tone)
    }

    /// A verdict check's result as a badge: pass good, fail bad, skipped muted, pending on hold.
    package static func badge(_ result: TesterVerdict.Row.Result) -> HTML {
        let tone: Tone = switch result { case .pass: .good; case .fail: .bad; case .skipped: .muted; case .pending: .wait }
        return badge(result.rawValue, tone)
    }
}
