import Foundation
import HandoverProtocol
import Vapor

/// A logout run as the API shows it: the contract's wire type, served as Vapor content.
typealias RunView = LogoutRunView

extension LogoutRunView: Content {}

/// An event a webhook receives.
struct WebhookEventPayload: Codable, Equatable {
    var id: UUID
    var type: String
    var createdAt: Date
    var run: RunView?
    var deviceID: UUID?
    /// For `operation.suspicious`: the sign-in the person said was not theirs.
    var operation: SuspiciousOperation?
}

/// An out-of-band operation reported as "this was not me", as the webhook tells it.
struct SuspiciousOperation: Codable, Equatable {
    var id: UUID
    var type: String
    var user: String
    /// The phone that reported it.
    var deviceID: String
    var reportedAt: Date
}

extension JSONEncoder {
    /// ISO 8601 dates and sorted keys: the form every JSON body of the API uses.
    static let api: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension JSONDecoder {
    static let api: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
