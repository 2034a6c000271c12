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
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSinceReferenceDate: seconds) }
            let text = try container.decode(String.self)
            let plain = ISO8601DateFormatter()
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = plain.date(from: text) ?? fractional.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }()
}
