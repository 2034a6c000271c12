import Foundation
import Prometheus

/// The server's Prometheus metrics, served at `/metrics`.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let runsCreated: Counter
    let reissues: Counter
    let timeouts: Counter

    init() {
        runsCreated = registry.makeCounter(name: "handover_logout_runs_created_total")
        reissues = registry.makeCounter(name: "handover_logout_items_reissued_total")
        timeouts = registry.makeCounter(name: "handover_logout_items_timed_out_total")
    }

    func callbacks(_ outcome: String) -> Counter {
        registry.makeCounter(name: "handover_callbacks_total", labels: [("outcome", outcome)])
    }

    func runsFinished(_ status: String) -> Counter {
        registry.makeCounter(name: "handover_logout_runs_finished_total", labels: [("status", status)])
    }

    func operationsCreated(_ type: String) -> Counter {
        registry.makeCounter(name: "handover_oob_operations_created_total", labels: [("type", type)])
    }

    func operationsFinished(_ status: String) -> Counter {
        registry.makeCounter(name: "handover_oob_operations_finished_total", labels: [("status", status)])
    }

    /// Answers refused, by ``OutOfBand/AnswerRejection`` code.
    func answersRefused(_ code: String) -> Counter {
        registry.makeCounter(name: "handover_oob_answers_refused_total", labels: [("code", code)])
    }

    func pushesSent(_ outcome: String) -> Counter {
        registry.makeCounter(name: "handover_oob_pushes_total", labels: [("outcome", outcome)])
    }

    /// The exposition text.
    func render() -> String {
        var buffer = [UInt8]()
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
