import Foundation
import HandoverProtocol

/// The tester's verdict: one row per check, and whether the app passed.
public struct TesterVerdict: Codable, Sendable, Equatable {
    /// One check.
    public struct Row: Codable, Sendable, Equatable {
        public enum Result: String, Codable, Sendable {
            case pass, fail, pending, skipped
        }
        public var check: String
        public var result: Result
        public var detail: String
    }

    public var rows: [Row]

    /// Failed when any check failed, running while any waits, passed otherwise.
    public var status: TesterVerdictStatus {
        if rows.contains(where: { $0.result == .fail }) { return .failed }
        if rows.contains(where: { $0.result == .pending }) { return .running }
        return .passed
    }

    /// Builds the verdict from the association-file report and the rounds.
    package init(association: TesterAssociationReport, rounds: [TesterRound], budgetSeconds: Int) {
        var rows: [Row] = []
        if let appID = association.claimingAppID {
            rows.append(Row(check: "association file", result: association.errors == 0 ? .pass : .fail,
                            detail: "\(appID) claims the action path" + (association.errors == 0 ? "" : "; the file has \(association.errors) error(s)")))
        } else {
            rows.append(Row(check: "association file", result: .fail, detail: association.summary))
        }
        for round in rounds {
            switch round.kind {
            case .callback:
                let result = Self.result(round)
                rows.append(Row(check: "callback", result: result, detail: round.detail ?? Self.waiting(round)))
                if let elapsed = round.elapsed {
                    let within = elapsed <= Double(budgetSeconds)
                    rows.append(Row(check: "time", result: within ? .pass : .fail,
                                    detail: String(format: "%.1f s of the %d s budget", elapsed, budgetSeconds)))
                } else {
                    rows.append(Row(check: "time", result: result == .fail ? .fail : result == .skipped ? .skipped : .pending,
                                    detail: result == .fail ? "no answer within the \(budgetSeconds) s budget" : "waiting"))
                }
            case .duplicate:
                rows.append(Row(check: "duplicate link", result: Self.result(round), detail: round.detail ?? Self.waiting(round)))
            case .hostile:
                rows.append(Row(check: "hostile callback", result: Self.result(round), detail: round.detail ?? Self.waiting(round)))
            }
        }
        self.rows = rows
    }

    private static func result(_ round: TesterRound) -> Row.Result {
        switch round.status {
        case .passed: .pass
        case .failed: .fail
        case .skipped: .skipped
        case .ready, .waiting: .pending
        }
    }

    private static func waiting(_ round: TesterRound) -> String {
        round.status == .ready ? "not started" : "waiting for the app"
    }
}
