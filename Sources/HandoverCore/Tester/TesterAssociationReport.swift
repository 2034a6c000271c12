import Foundation

/// What the tester found in the association file of the action's domain.
public struct TesterAssociationReport: Codable, Sendable, Equatable {
    /// Where the file was fetched from.
    public var url: String
    /// The HTTP status, when there was an answer.
    public var statusCode: Int?
    /// The validator's findings, one sentence each (`error at $.applinks…: …`).
    public var findings: [String]
    public var errors: Int
    /// The appID whose entry claims the action path, if any.
    public var claimingAppID: String?
    /// For each appID in the file, the decision on the action URL (`match`, `excluded`, `no_match`…).
    public var decisions: [String: String]

    /// One sentence for people.
    public var summary: String {
        if let claimingAppID { return "\(claimingAppID) claims the action path" }
        if statusCode == nil { return "the association file could not be fetched: \(findings.first ?? "no answer")" }
        if decisions.isEmpty { return "the association file names no app; iOS would open the link in Safari" }
        let reasons = decisions.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        return "no appID claims the action path (\(reasons)); iOS would open the link in Safari"
    }
}
