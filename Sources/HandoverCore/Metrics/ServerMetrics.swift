import Foundation
import HandoverProtocol
import Prometheus

/// The server's Prometheus metrics, served at `/metrics`.
package final class ServerMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()
    package let runsCreated: Counter
    package let reissues: Counter
    package let timeouts: Counter
    /// How late each deadline fired: from the item's due time to the commit of its reissue or
    /// timeout. Its bucket `le="1.0"` against its count says whether every deadline fired within
    /// a second (what `handover bench shift-change` reports as the server's record).
    package let deadlineLateness: DurationHistogram

    package init() {
        runsCreated = registry.makeCounter(name: "handover_logout_runs_created_total")
        reissues = registry.makeCounter(name: "handover_logout_items_reissued_total")
        timeouts = registry.makeCounter(name: "handover_logout_items_timed_out_total")
        deadlineLateness = registry.makeDurationHistogram(
            name: MetricName.deadlineLateness, buckets: Self.deadlineLatenessBuckets,
            help: "How late each logout item's deadline fired: from its due time to the commit of its reissue or timeout.")
    }

    /// Its buckets: fine below a second, the promise's bound, coarse above it.
    package static let deadlineLatenessBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .milliseconds(750), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30),
    ]

    package func callbacks(_ outcome: String) -> Counter {
        registry.makeCounter(name: "handover_callbacks_total", labels: [("outcome", outcome)])
    }

    package func runsFinished(_ status: String) -> Counter {
        registry.makeCounter(name: "handover_logout_runs_finished_total", labels: [("status", status)])
    }

    package func operationsCreated(_ type: String) -> Counter {
        registry.makeCounter(name: "handover_oob_operations_created_total", labels: [("type", type)])
    }

    package func operationsFinished(_ status: String) -> Counter {
        registry.makeCounter(name: "handover_oob_operations_finished_total", labels: [("status", status)])
    }

    /// Answers refused, by ``OutOfBand/AnswerRejection`` code.
    package func answersRefused(_ code: String) -> Counter {
        registry.makeCounter(name: "handover_oob_answers_refused_total", labels: [("code", code)])
    }

    /// The audit log's self-check: `mismatch` when the stored log no longer makes its last
    /// checkpoint, `ok` otherwise.
    package func auditSelfChecks(_ result: String) -> Counter {
        registry.makeCounter(name: "handover_audit_self_checks_total", labels: [("result", result)])
    }

    /// The audit log's size at its latest checkpoint.
    package var auditCheckpointSize: Gauge { registry.makeGauge(name: "handover_audit_checkpoint_size") }

    /// 1 while an alarm of the audit log is open (``AuditAlarms``: a history that no longer makes
    /// its signed checkpoints, or a run's outcome that differs from its receipt), 0 otherwise.
    package var auditIntegrityFailed: Gauge { registry.makeGauge(name: "handover_audit_integrity_failed") }

    package func pushesSent(_ outcome: String) -> Counter {
        registry.makeCounter(name: "handover_oob_pushes_total", labels: [("outcome", outcome)])
    }

    /// The exposition text.
    package func render() -> String {
        var buffer = [UInt8]()
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
