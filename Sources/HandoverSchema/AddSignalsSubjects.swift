import FluentKit
import SQLKit

/// Version 30: what each Shared Signals receiver may see (issue 63).
///
/// - `oauth_clients.signals_subjects`: `app` (the sessions of the client's own app) or `fleet`
///   (every session and device), set by an admin (`PUT /api/v1/signals/clients/{clientID}`);
///   null means the client's kind decides: an app's backend (`software_id`) sees its app's, a
///   fleet backend, which only an admin registers, the fleet's.
struct AddSignalsSubjects: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("oauth_clients").field("signals_subjects", .string).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("oauth_clients").deleteField("signals_subjects").update()
    }
}
