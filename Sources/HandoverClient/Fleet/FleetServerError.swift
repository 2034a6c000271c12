import Foundation
import HandoverProtocol

/// Why a call to the Handover server failed, with the server's own words when it answered.
public enum FleetServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached, or the connection broke.
    case unreachable(url: String, detail: String)
    /// The server refused the request: its HTTP status and `{"error","reason"}` body.
    case rejected(status: Int, error: String, reason: String)
    /// The server answered something this client cannot read.
    case unreadable(url: String, detail: String)

    public var description: String {
        switch self {
        case .unreachable(let url, let detail):
            "The Handover server at \(url) could not be reached: \(detail)."
        case .rejected(let status, let error, let reason):
            "The Handover server refused the request with HTTP \(status) (\(error)): \(reason)"
        case .unreadable(let url, let detail):
            "The Handover server's answer from \(url) could not be read: \(detail)."
        }
    }
}

extension FleetServerError {
    /// The refusal an answer outside 2xx carries: the server's `APIErrorBody` when the body is
    /// one, else the status and the body's first 500 bytes.
    static func refusal(status: Int, body: Data) -> FleetServerError {
        let problem = try? JSONDecoder().decode(APIErrorBody.self, from: body)
        return .rejected(status: status, error: problem?.error ?? "http_\(status)",
                         reason: problem?.reason ?? String(decoding: body.prefix(500), as: UTF8.self))
    }
}
