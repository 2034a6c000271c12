import Foundation
import HandoverCore

/// An app's last 30 days as a server-rendered SVG (no script, no framework): one bar per day,
/// split into succeeded (green), failed (red) and timed out (amber) as shares of the day's
/// finished logouts, and a blue line for the day's p95 logout time on the right-hand axis.
/// Every bar and point carries a `<title>`, so hovering (or a screen reader) gives the figures.
package enum ScorecardChart {
    package static let width = 720
    package static let height = 260

    package static func svg(_ card: AppScorecard) -> String {
        let left = 44.0, right = 56.0, top = 16.0, bottom = 44.0
        let plotWidth = Double(width) - left - right, plotHeight = Double(height) - top - bottom
        let slot = plotWidth / Double(max(1, card.daily.count))
        let slowest = card.daily.compactMap(\.p95Seconds).max() ?? 0
        let timeScale = Self.niceCeiling(max(slowest, 0.001))
        var parts: [String] = []
        parts.append(##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \##(width) \##(height)" width="100%" role="img" aria-labelledby="chart-title" class="chart">"##)
        parts.append(##"<title id="chart-title">Success rate per day (bars) and p95 logout time (line), last 30 days</title>"##)
        for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let y = top + plotHeight * (1 - fraction)
            parts.append(##"<line x1="\##(f(left))" x2="\##(f(left + plotWidth))" y1="\##(f(y))" y2="\##(f(y))" stroke="#e0e0e0"/>"##)
            parts.append(##"<text x="\##(f(left - 6))" y="\##(f(y + 4))" font-size="11" text-anchor="end" fill="#555">\##(Int(fraction * 100)) %</text>"##)
            parts.append(##"<text x="\##(f(left + plotWidth + 6))" y="\##(f(y + 4))" font-size="11" fill="#1565c0">\##(Self.seconds(timeScale * fraction))</text>"##)
        }
        var points: [(x: Double, y: Double, title: String)] = []
        for (index, day) in card.daily.enumerated() {
            let x = left + Double(index) * slot + slot * 0.15
            let barWidth = slot * 0.7
            if (index % 7 == 0 && index <= card.daily.count - 4) || index == card.daily.count - 1 {  // labels never overlap
                parts.append(##"<text x="\##(f(x + barWidth / 2))" y="\##(f(top + plotHeight + 16))" font-size="11" text-anchor="middle" fill="#555">\##(Self.day(day.start))</text>"##)
            }
            guard day.finished > 0 else { continue }
            var y = top + plotHeight
            for (count, colour, word) in [(day.succeeded, "#2e7d32", "succeeded"), (day.failed, "#c62828", "failed"),
                                          (day.timedOut, "#f9a825", "timed out")] where count > 0 {
                let h = plotHeight * Double(count) / Double(day.finished)
                y -= h
                parts.append(##"<rect x="\##(f(x))" y="\##(f(y))" width="\##(f(barWidth))" height="\##(f(h))" fill="\##(colour)"><title>\##(Self.day(day.start)): \##(count) \##(word) of \##(day.finished)</title></rect>"##)
            }
            if let p95 = day.p95Seconds {
                points.append((x + barWidth / 2, top + plotHeight * (1 - min(1, p95 / timeScale)), "\(Self.day(day.start)): p95 \(Self.seconds(p95))"))
            }
        }
        if points.count > 1 {
            let line = points.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ")
            parts.append(##"<polyline points="\##(line)" fill="none" stroke="#1565c0" stroke-width="2"/>"##)
        }
        for point in points {
            parts.append(##"<circle cx="\##(f(point.x))" cy="\##(f(point.y))" r="3" fill="#1565c0"><title>\##(point.title)</title></circle>"##)
        }
        let legendY = Double(height) - 10
        for (offset, colour, word) in [(0.0, "#2e7d32", "succeeded"), (110.0, "#c62828", "failed"), (200.0, "#f9a825", "timed out")] {
            parts.append(##"<rect x="\##(f(left + offset))" y="\##(f(legendY - 9))" width="10" height="10" fill="\##(colour)"/>"##)
            parts.append(##"<text x="\##(f(left + offset + 14))" y="\##(f(legendY))" font-size="11" fill="#333">\##(word)</text>"##)
        }
        parts.append(##"<line x1="\##(f(left + 310))" x2="\##(f(left + 330))" y1="\##(f(legendY - 4))" y2="\##(f(legendY - 4))" stroke="#1565c0" stroke-width="2"/>"##)
        parts.append(##"<text x="\##(f(left + 334))" y="\##(f(legendY))" font-size="11" fill="#333">p95 logout time (right axis)</text>"##)
        parts.append("</svg>")
        return parts.joined()
    }

    /// The smallest of 1, 2, 5 × 10ⁿ at or above `value`: an axis that reads in round numbers.
    package static func niceCeiling(_ value: Double) -> Double {
        let magnitude = pow(10, floor(log10(value)))
        for step in [1.0, 2.0, 5.0, 10.0] where step * magnitude >= value * 0.999_999 { return step * magnitude }
        return 10 * magnitude
    }

    /// A duration as the chart and the scorecard show it: `0 s`, `250 ms`, `1.5 s`, `42 s`.
    package static func seconds(_ value: Double) -> String {
        if value == 0 { return "0 s" }
        if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
        return value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }

    private static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.month, .day], from: date)
        return String(format: "%02d-%02d", parts.month ?? 0, parts.day ?? 0)
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
