import Foundation
import OpenAPIRuntime

/// The API's dates, `2026-11-24T07:00:00Z`: written with `Date.ISO8601FormatStyle`, read as the
/// generated runtime reads them.
///
/// The runtime's own transcoder formats through one `ISO8601DateFormatter` behind a lock: a run's
/// body has three dates per app, and in a shift change that formatter was a queue every request
/// waited in. The format style writes the same text without shared state.
struct APIDateTranscoder: DateTranscoder {
    private let reader = ISO8601DateTranscoder()
    private let style = Date.ISO8601FormatStyle()

    func encode(_ date: Date) throws -> String {
        style.format(date)
    }

    func decode(_ text: String) throws -> Date {
        try reader.decode(text)
    }
}
