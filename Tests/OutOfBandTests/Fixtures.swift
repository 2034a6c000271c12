import Foundation
@testable import OutOfBand

enum Fixture {
    static let redeemURL = URL(string: "https://handover.example.com/oob/redeem")!
    static let expiresAt = Date(timeIntervalSince1970: 1_750_000_300)
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let challenge = try! OperationChallenge(bytes: Data((0..<32).map { UInt8($0) }))

    static func envelope(type: OperationType = .authentication, message: String? = nil, numbers: [Int]? = [27, 81, 44],
                         callbacks: CallbackTargets? = nil) throws -> OperationEnvelope {
        try OperationEnvelope(operation: "op_123", type: type, redeemURL: redeemURL, challenge: challenge, expiresAt: expiresAt,
                              message: message, numberChoices: numbers, callbacks: callbacks)
    }

    /// The envelope's JSON with `edit` applied to its dictionary.
    static func editedJSON(_ edit: (inout [String: Any]) -> Void) throws -> Data {
        var object = try JSONSerialization.jsonObject(with: try envelope().json()) as! [String: Any]
        edit(&object)
        return try JSONSerialization.data(withJSONObject: object)
    }
}

func expectError(_ field: String, _ problem: OutOfBandError.Problem, _ body: () throws -> Void,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("no error; expected \(field) \(problem)", sourceLocation: sourceLocation)
    } catch let error as OutOfBandError {
        #expect(error.field == field && error.problem == problem, "\(error)", sourceLocation: sourceLocation)
        #expect(!error.detail.isEmpty && !error.accepted.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

import Testing
