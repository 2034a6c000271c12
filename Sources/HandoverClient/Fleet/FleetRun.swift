import Foundation

/// A logout run as the Handover server shows it (`RunView` of `GET /api/v1/logout-runs/{id}`).
public struct FleetRun: Sendable, Equatable, Codable {
    /// One target app's part of the run.
    public struct Item: Sendable, Equatable, Codable {
        public var id: UUID
        /// The registered app's id.
        public var appID: UUID
        /// The registered app's name.
        public var app: String
        /// Order in the run, from 0.
        public var position: Int
        /// `pending`, `succeeded`, `failed` or `timed_out`.
        public var status: String
        /// Links issued so far, the first included; the server reissues after a deadline.
        public var attempts: Int
        public var issuedAt: Date?
        public var deadlineAt: Date?
        public var finishedAt: Date?
        /// `launcher` or `browser`, once an answer was recorded.
        public var reportedBy: String?
        /// The ULC link to open now; only while the item is pending.
        public var link: String?

        /// Whether the item still waits for an answer.
        public var isPending: Bool { status == "pending" }
    }

    public var id: UUID
    public var deviceID: UUID
    /// `running`, `completed` or `failed`.
    public var status: String
    public var createdAt: Date?
    public var finishedAt: Date?
    public var items: [Item]

    /// Whether the server still waits for some item.
    public var isRunning: Bool { status == "running" }

    /// The decoder for the server's JSON: ISO 8601 dates, with or without fractional seconds.
    static let decoder: JSONDecoder = {
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
