import FluentKit

/// Version 31: a sign-in link asked for by an app that names itself remembers the app's Apple
/// team, and only an app of that team may redeem it (Native SSO's same-team rule; issue 63).
struct AddEmailLinkTeam: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("email_login_tokens").field("client_team", .string).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("email_login_tokens").deleteField("client_team").update()
    }
}
