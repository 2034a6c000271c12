import FluentKit
import Foundation
import HandoverSchema

/// Runs and what they left, read for the dashboard's pages.
extension LogoutRun {
    /// The runs with these ids (those that still exist), by id.
    package static func byID(_ ids: [UUID], on database: any Database) async throws -> [UUID: LogoutRun] {
        guard !ids.isEmpty else { return [:] }
        let runs = try await query(on: database).filter(\.$id ~~ ids).all()
        return Dictionary(runs.compactMap { run in run.id.map { ($0, run) } }, uniquingKeysWith: { first, _ in first })
    }
}

extension LogoutItemReissue {
    /// The reissues of a run's items.
    package static func all(ofRun run: UUID, on database: any Database) async throws -> [LogoutItemReissue] {
        try await query(on: database).filter(\.$runID == run).all()
    }
}

extension BackChannelLogoutDelivery {
    /// The logout tokens sent to a run's apps' backends.
    package static func all(ofRun run: UUID, on database: any Database) async throws -> [BackChannelLogoutDelivery] {
        try await query(on: database).filter(\.$runID == run).all()
    }
}
