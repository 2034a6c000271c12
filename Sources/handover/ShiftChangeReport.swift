import DeviceSimulator
import Foundation

/// The figures of a shift-change storm as the terminal shows them.
struct ShiftChangeReport {
    var figures: ShiftChangeFigures

    var text: String {
        let f = figures
        func count(_ value: Int) -> String { value.formatted(.number.grouping(.automatic)) }
        func one(_ value: Double) -> String { String(format: "%.1f", value) }
        var lines = [
            "",
            "Shift change: \(count(f.plan.devices)) phones × \(f.plan.apps) apps over \(Int(f.plan.windowSeconds)) s on \(f.database)"
                + " (\(f.instances) instance\(f.instances == 1 ? "" : "s")), \(one(f.plan.stallRate * 100)) % stalls",
        ]
        if let checkOuts = f.checkOuts {
            lines.append("  check-outs \(count(checkOuts.done)) done, \(count(checkOuts.refused)) refused; \(count(checkOuts.recorded)) custodies"
                + " checked in by their runs, \(count(checkOuts.unmatched)) not")
        } else {
            lines.append("  check-outs off")
        }
        lines += [
            "  runs       \(count(f.runs.started)) started, \(count(f.runs.completed)) completed, \(count(f.runs.failed)) failed"
                + " (\(count(f.runs.failed - f.runs.failedByTimeOut)) an app answered error, \(count(f.runs.failedByTimeOut)) an app timed out),"
                + " \(count(f.runs.unfinished)) unfinished, \(count(f.runs.refused)) refused",
            "  callbacks  \(count(f.callbacks.acknowledged)) acknowledged, \(count(f.callbacks.recorded)) recorded, \(count(f.callbacks.lost)) lost;"
                + " \(count(f.callbacks.viaBrowser)) through the browser page",
            "  duplicates \(count(f.callbacks.duplicatesRefused)) refused (409), \(count(f.callbacks.duplicatesAccepted)) accepted",
            "  latency    callback \(f.callbacks.latency.text); \(count(Int(f.callbacks.perSecond))) recorded/s",
            "             run start \(f.runStartLatency.text)",
        ]
        if let checkOuts = f.checkOuts {
            lines.append("             check-out \(checkOuts.latency.text) (\(f.plan.checkOutInWindow ? "in the window, before each run" : "before the window, 16 at once"))")
        }
        lines.append("  deadlines  \(count(f.deadlines.fired)) fired, late by \(f.deadlines.lateness.text) as the launchers saw it (an upper bound);"
            + " \(count(f.deadlines.missed)) missed")
        if let record = f.deadlines.serverRecord {
            let bound = record.upperBound(of: 0.99).map { "p99 ≤ \(one($0 * 1000)) ms" } ?? "p99 beyond the last bucket"
            let worst = record.upperBound(of: 1).map { "max ≤ \(one($0 * 1000)) ms" } ?? "max beyond the last bucket"
            let mean = record.meanMilliseconds.map { "mean \(one($0)) ms" } ?? "none fired"
            lines.append("             by the servers' record: \(count(record.withinOneSecond ?? 0)) of \(count(record.fired)) within 1 s"
                + " (\(mean), \(bound), \(worst))")
            if let uncalled = f.deadlines.uncalledFor {
                lines.append("             \(count(f.deadlines.stallsPlayed ?? 0)) stalled apps call for as many; \(count(uncalled)) fired beyond them")
            }
        } else {
            lines.append("             (the servers' /metrics has no deadline record)")
        }
        if let shedding = f.shedding, shedding.busyAnswers > 0 {
            lines.append("  shed       \(count(shedding.busyAnswers)) answers 503 + Retry-After (the server at its capacity);"
                + " \(count(shedding.startsRetried)) runs started on a later try, \(count(shedding.retries)) tries again in all")
        }
        for (index, memory) in f.memory.enumerated() {
            let label = f.memory.count == 1 ? "  memory     " : "  memory #\(index + 1)  "
            lines.append(label + "RSS before \(one(memory.beforeMB)) MB, peak \(one(memory.peakMB)) MB, after \(one(memory.afterMB)) MB"
                + " (\(String(format: "%.2f", memory.afterRatio))× before)")
        }
        if let dashboards = f.dashboards {
            lines.append("  dashboards \(dashboards.opened) open on the live overview: \(dashboards.connected) connected, "
                + "\(count(dashboards.updates)) updates received, \(dashboards.dropped) dropped")
        }
        for page in f.pages {
            let answers = page.statuses.sorted { $0.key < $1.key }.map { $0.key == 0 ? "\($0.value) unanswered" : "\($0.value)× \($0.key)" }
            lines.append("  page       \(page.name): p50 \(one(page.latency.p50)) ms, p95 \(one(page.latency.p95)) ms, max \(one(page.latency.max)) ms"
                + " (\(answers.joined(separator: ", ")))")
        }
        if let audit = f.auditLog {
            lines.append("  audit log  \(count(audit.after - audit.before)) entries added (\(one(audit.perHandOver)) a hand-over), \(count(audit.after)) in all")
        }
        if f.rateLimited > 0 { lines.append("  throttled  \(count(f.rateLimited)) requests with a valid key answered 429") }
        if f.callbacks.transportErrors > 0 { lines.append("  errors     \(count(f.callbacks.transportErrors)) requests got no answer") }
        if !f.refusals.isEmpty {
            lines.append("  refusals   " + f.refusals.sorted { $0.key < $1.key }.map { "\($0.key): \(count($0.value))" }.joined(separator: ", "))
        }
        lines.append("  setup \(one(f.setupSeconds)) s, storm \(one(f.stormSeconds)) s — " + (f.isClean ? "every hand-over recorded" : "NOT CLEAN: see above"))
        return lines.joined(separator: "\n")
    }

    /// A closed loop's figures, and the knee: the storm over `windowSeconds` that offers what the loop finished.
    static func closedLoopText(_ f: ClosedLoopFigures, windowSeconds: Double) -> String {
        func count(_ value: Int) -> String { value.formatted(.number.grouping(.automatic)) }
        func one(_ value: Double) -> String { String(format: "%.1f", value) }
        var lines = [
            "",
            "Closed loop: \(f.launchers) launchers for \(one(f.seconds)) s",
            "  hand-overs \(count(f.handOvers)): \(one(f.handOversPerSecond))/s; run starts \(one(f.runStartsPerSecond))/s",
            "  callbacks  \(one(f.callbacksPerSecond)) acknowledged/s; latency \(f.callbackLatency.text)",
            "             run start \(f.runStartLatency.text)",
            "  knee       \(count(f.kneePhones(windowSeconds: windowSeconds))) phones over \(Int(windowSeconds)) s",
        ]
        if let cost = f.cost {
            let postgres = cost.postgresCPUSeconds.map { ", PostgreSQL \(String(format: "%.2f", $0)) s" } ?? ""
            lines.append("  cost       CPU: Handover \(String(format: "%.2f", cost.handoverCPUSeconds)) s\(postgres)"
                + " (the generator \(String(format: "%.2f", cost.generatorCPUSeconds)) s, apart):"
                + " \(String(format: "%.2f", cost.cpuSecondsPer1000HandOvers)) s per 1,000 hand-overs")
            if let perHandOver = cost.statementsPerHandOver, let perCallback = cost.statementsPerCallback {
                lines.append("             statements: \(count(cost.statements ?? 0)), \(one(perHandOver)) a hand-over,"
                    + " \(String(format: "%.2f", perCallback)) a callback")
            }
        }
        if f.busyAnswers > 0 { lines.append("  shed       \(count(f.busyAnswers)) answers 503 + Retry-After") }
        if f.transportErrors > 0 { lines.append("  errors     \(count(f.transportErrors)) requests got no answer") }
        if !f.refusals.isEmpty {
            lines.append("  refusals   " + f.refusals.sorted { $0.key < $1.key }.map { "\($0.key): \(count($0.value))" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
