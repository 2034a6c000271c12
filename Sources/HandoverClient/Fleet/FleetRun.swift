import Foundation
import HandoverProtocol

/// A logout run as the Handover server shows it: the contract's `LogoutRunView`
/// (`GET /api/v1/logout-runs/{id}`), with its states as enums.
public typealias FleetRun = LogoutRunView

extension LogoutRunView {
    /// The decoder for the server's JSON: ISO 8601 dates, with or without fractional seconds.
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let text = try? container.decode(String.self) else {
                return Date(timeIntervalSinceReferenceDate: try container.decode(Double.self))
            }
            // Format styles, not ISO8601DateFormatter: a formatter is costly to make, and a run has
            // three dates per app (a load generator playing thousands of launchers spent half its
            // time making formatters).
            guard let date = (try? wholeSeconds.parse(text)) ?? (try? fractionalSeconds.parse(text)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }()

    private static let wholeSeconds = Date.ISO8601FormatStyle()
    private static let fractionalSeconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
